-- Table and column names in another case, columns in another order, extra columns.
CREATE TABLE TODO(DueDate INTEGER, COMPLETE BOOLEAN, Priority INTEGER, TEXT VARCHAR(25),
  PK INTEGER PRIMARY KEY, notes TEXT);
INSERT INTO TODO VALUES (1216990000, 1, 2, 'Call Caitlin', 2, 'ignored');
INSERT INTO TODO VALUES (NULL, 0, 1, 'Renew passport', 1, NULL);
