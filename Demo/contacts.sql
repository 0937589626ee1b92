-- The demo address book (fictional people; 555-01xx numbers are reserved for fiction).
CREATE TABLE CONTACTS(ID INTEGER PRIMARY KEY AUTOINCREMENT, NAME TEXT, ADDRESS TEXT, PHONE TEXT);
INSERT INTO CONTACTS VALUES (1, 'Ada Fernsby', '14 Orchard Lane, Brookfield', '(555) 010-1234');
INSERT INTO CONTACTS VALUES (2, 'Bruno Castellan', '3 Harbour Road, Port Ellery', '(555) 010-2345');
INSERT INTO CONTACTS VALUES (3, 'Chiara Okafor', '88 Linden Street, Apt 4B, Millbrook', '(555) 010-3456');
INSERT INTO CONTACTS VALUES (4, 'Dr. Hana Ishikawa (dentist)', '200 Main Street, Suite 12, Brookfield', '(555) 010-4567');
INSERT INTO CONTACTS VALUES (5, 'Elliot Brandt', '7 Mill Cottages, Ashby', '(555) 010-5678');
INSERT INTO CONTACTS VALUES (6, 'Farah Nadeem', '51 Kingfisher Way, Millbrook', '(555) 010-6789');
INSERT INTO CONTACTS VALUES (7, 'Grandma Rose', '2 Primrose Hill, Little Ashby', '(555) 010-7890');
INSERT INTO CONTACTS VALUES (8, 'Corner Bike Shop', '19 Station Parade, Brookfield', '(555) 010-8901');
INSERT INTO CONTACTS VALUES (9, 'Sam Oduya', '61 Willow Crescent, Port Ellery', '(555) 010-9012');
INSERT INTO CONTACTS VALUES (10, 'Tomás Díaz', 'Calle del Olmo 9, Brookfield', '(555) 010-0123');
