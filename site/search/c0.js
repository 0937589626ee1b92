taskpressSearch.shard("c0",[
[1,"Ada Fernsby"],
[2,"Bruno Castellan"],
[3,"Chiara Okafor"],
[4,"Dr. Hana Ishikawa (dentist)"],
[5,"Elliot Brandt"],
[6,"Farah Nadeem"],
[7,"Grandma Rose"],
[8,"Corner Bike Shop"],
[9,"Sam Oduya"],
[10,"Tomás Díaz"]]);
