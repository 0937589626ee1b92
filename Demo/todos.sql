-- The demo to-do list: the schema of the iPhone tutorial app taskpress descends from.
-- priority: 1 High, 2 Medium, 3 Low. complete: 0 in progress, 1 complete.
CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN);
INSERT INTO todo VALUES (1, 'Take out the trash', 3, 1);
INSERT INTO todo VALUES (2, 'Renew passport before the summer trip', 1, 0);
INSERT INTO todo VALUES (3, 'Book the dentist', 2, 0);
INSERT INTO todo VALUES (4, 'Water the Monstera', 3, 1);
INSERT INTO todo VALUES (5, 'File the **tax return**', 1, 0);
INSERT INTO todo VALUES (6, 'Fix the bicycle''s back light', 2, 0);
INSERT INTO todo VALUES (7, 'Call Grandma on Sunday', 1, 1);
INSERT INTO todo VALUES (8, 'Restring the guitar', 3, 0);
INSERT INTO todo VALUES (9, 'Buy coffee beans', 2, 1);
INSERT INTO todo VALUES (10, 'Back up the laptop', 1, 0);
INSERT INTO todo VALUES (11, 'Return library books', 2, 0);
INSERT INTO todo VALUES (12, 'Plan the garden for spring', 3, 0);
INSERT INTO todo VALUES (13, 'Pay the electricity bill', 1, 1);
INSERT INTO todo VALUES (14, 'Develop the film from the rangefinder', 3, 0);
INSERT INTO todo VALUES (15, 'Learn SQLite', 2, 1);
INSERT INTO todo VALUES (16, 'Clean the teapot''s spout', 3, 1);
INSERT INTO todo VALUES (17, 'Send the birthday card to Sam', 1, 0);
INSERT INTO todo VALUES (18, 'Replace the smoke alarm battery', 1, 0);
INSERT INTO todo VALUES (19, 'Sort the recycling', 3, 0);
INSERT INTO todo VALUES (20, 'Write the quarterly report', 2, 0);
INSERT INTO todo VALUES (21, 'Order new running shoes', 3, 1);
INSERT INTO todo VALUES (22, 'Defrost the freezer', 2, 0);
INSERT INTO todo VALUES (23, 'Read "The Pragmatic Programmer"', 3, 0);
INSERT INTO todo VALUES (24, 'Bake bread for the neighbours', 2, 1);
INSERT INTO todo VALUES (25, 'Check the tyre pressure', 2, 0);
