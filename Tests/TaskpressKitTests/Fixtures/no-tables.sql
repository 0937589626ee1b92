-- A database with a page but no tables.
CREATE TABLE scratch(a);
DROP TABLE scratch;
