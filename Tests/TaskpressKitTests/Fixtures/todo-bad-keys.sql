-- pk is not the rowid here, so it can be NULL, text or repeated.
CREATE TABLE todo(pk INTEGER, text TEXT, priority INTEGER, complete BOOLEAN);
INSERT INTO todo VALUES (2, 'First with pk 2', 1, 0);
INSERT INTO todo VALUES (2, 'Second with pk 2', 1, 0);
INSERT INTO todo VALUES (NULL, 'No pk', 1, 0);
INSERT INTO todo VALUES ('x', 'Text pk', 1, 0);
INSERT INTO todo VALUES (1, 'One', 1, 0);
