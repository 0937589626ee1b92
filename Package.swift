// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "taskpress",
  products: [
    .executable(name: "taskpress", targets: ["taskpress"])
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .systemLibrary(
      name: "CCmark",
      pkgConfig: "libcmark",
      providers: [.apt(["libcmark-dev"])]
    ),
    .systemLibrary(
      name: "CVips",
      pkgConfig: "vips",
      providers: [.apt(["libvips-dev"])]
    ),
    // The few libvips calls the photos make, behind a small non-variadic C API.
    .target(name: "CVipsShim", dependencies: ["CVips"]),
    .target(name: "SQLite", dependencies: ["CSQLite"]),
    .target(name: "Mustache"),
    .target(
      name: "TaskpressKit",
      dependencies: ["SQLite", "Mustache", "CCmark", "CVipsShim"],
      resources: []
    ),
    .target(name: "Server"),
    .target(name: "TaskpressCLI", dependencies: ["TaskpressKit", "Mustache", "Server"]),
    .executableTarget(name: "taskpress", dependencies: ["TaskpressCLI"]),
    .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
    .testTarget(
      name: "MustacheTests",
      dependencies: ["Mustache"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "TaskpressKitTests",
      dependencies: ["TaskpressKit", "SQLite", "Mustache", "CCmark", "CVipsShim"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "TaskpressCLITests", dependencies: ["TaskpressCLI", "TaskpressKit", "SQLite"]),
    .testTarget(name: "ServerTests", dependencies: ["Server"]),
  ],
  swiftLanguageModes: [.v6]
)
