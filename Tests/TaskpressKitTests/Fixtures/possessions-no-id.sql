-- No id column: the rowid is the id.
CREATE TABLE Possessions(Name TEXT, Description TEXT, Photo BLOB, Value REAL);
INSERT INTO Possessions(rowid, Name, Description, Photo, Value)
  VALUES (5, 'Bicycle', 'Blue, with a basket', NULL, 120.0);
INSERT INTO Possessions(rowid, Name, Description, Photo, Value)
  VALUES (3, 'Kettle', NULL, X'', 25.5);
