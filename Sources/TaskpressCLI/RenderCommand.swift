/// `taskpress render`: renders one template to stdout.
struct RenderCommand {
  var template: String
  var data: String?
  var partials: String?

  func run() throws -> String {
    throw UsageError("render is not built yet")
  }
}
