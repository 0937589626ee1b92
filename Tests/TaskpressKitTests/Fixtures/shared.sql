-- One file holding to-dos, possessions and contacts.
CREATE TABLE todo(pk INTEGER PRIMARY KEY, text TEXT, priority INTEGER, complete BOOLEAN);
INSERT INTO todo VALUES (1, 'Water the plants', 2, 0);
CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB);
INSERT INTO possessions VALUES (1, 'Watering can', 'Green', NULL);
CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, address TEXT, phone TEXT);
INSERT INTO contacts VALUES (1, 'Neighbour', 'Next door', '555-0199');
