-- One row per rule of DESIGN §1 for to-dos; rows are inserted out of order on purpose.
CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN);
INSERT INTO todo VALUES (3, 'Low', 3, 0);
INSERT INTO todo VALUES (1, 'High', 1, 1);
INSERT INTO todo VALUES (2, 'Medium', 2, NULL);
INSERT INTO todo VALUES (4, 'Priority seven', 7, 2);
INSERT INTO todo VALUES (5, 'Priority zero', 0, 'yes');
INSERT INTO todo VALUES (6, 'Priority NULL', NULL, 0);
INSERT INTO todo VALUES (7, 'Priority text', 'abc', 0);
INSERT INTO todo VALUES (8, 'Priority real', 2.5, 0);
INSERT INTO todo VALUES (9, NULL, 1, 0);
INSERT INTO todo VALUES (10, CAST(X'4361FF6665' AS TEXT), 1, 0);
INSERT INTO todo VALUES (11, CAST(X'4E0055004C' AS TEXT), 1, 0);
INSERT INTO todo VALUES (12, 'Priority minus one', -1, 0.0);
