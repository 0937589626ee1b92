/// The version of taskpress.
public let taskpressVersion = "0.1.0"
