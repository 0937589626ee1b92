import Mustache

extension SitePlan {
  /// `sitemap.xml`: the absolute URL of every page but the 404 page, in plan order, then those
  /// of `adding` (pages planned later).
  func sitemap(baseURL: String, adding: [Page] = []) -> [UInt8] {
    var xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">

      """
    for page in pages + adding where page != .notFound {
      let url = routes.absolute(name(of: page), baseURL: baseURL)
      xml += "  <url><loc>\(Escaping.html.escape(url))</loc></url>\n"
    }
    xml += "</urlset>\n"
    return Array(xml.utf8)
  }
}
