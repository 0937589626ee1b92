CREATE TABLE foo(a);
CREATE TABLE bar(b);
CREATE INDEX foo_a ON foo(a);
