/// The Mustache template engine.
public enum MustacheEngine {}
