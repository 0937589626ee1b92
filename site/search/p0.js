taskpressSearch.shard("p0",[
[1,"Bicycle","A red city bike with a **basket** and dynamo lights. Serviced in spring."],
[2,"Acoustic guitar","Spruce top, six strings; a little out of tune."],
[3,"Film camera","35 mm rangefinder from a flea market. The light meter still works."],
[4,"Teapot","Holds four cups. Handle glued once; careful."],
[5,"Monstera","Water every Sunday; keep out of direct sun."],
[6,"Blue mug","Bought at the pottery fair."],
[7,"Blue mug (spare)","Its twin, kept for guests."],
[8,"Passport","Expires in 2031. Kept in the top drawer."]]);
