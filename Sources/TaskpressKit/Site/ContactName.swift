import Foundation

/// How a contact's name is sorted and filed under a letter: without the spaces it starts
/// with, without case, and without accents (`  Émile` files under E, beside `emile`).
enum ContactName {
  /// The name as it sorts: leading white space trimmed, compatibility-decomposed (NFKD),
  /// marks dropped, lower-cased.
  static func sortKey(_ name: String) -> String {
    let trimmed = name.drop { $0.isWhitespace }
    let scalars = String(trimmed).decomposedStringWithCompatibilityMapping.unicodeScalars.filter {
      !isMark($0)
    }
    return String(String.UnicodeScalarView(scalars)).lowercased()
  }

  /// The upper-cased first letter of the name as it sorts, or `#` when it does not start with a
  /// letter.
  static func initial(of name: String) -> String {
    guard let first = sortKey(name).first, first.isLetter else { return "#" }
    return first.uppercased()
  }

  private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark: true
    default: false
    }
  }
}
