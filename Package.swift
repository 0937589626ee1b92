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
    // libvips' headers; GLib's pkg-config gives the include paths they need without linking
    // libvips, which CVipsShim loads with dlopen the first time a photo must be decoded.
    .systemLibrary(
      name: "CVips",
      pkgConfig: "glib-2.0",
      providers: [.apt(["libvips-dev"])]
    ),
    // The few libvips calls the photos make, behind a small non-variadic C API.
    .target(name: "CVipsShim", dependencies: ["CVips"]),
    .target(name: "SQLite", dependencies: ["CSQLite"]),
    // The one writer of JSON strings' escapes, below every target that writes JSON.
    .target(name: "JSONEscaping"),
    .target(name: "Mustache"),
    .target(
      name: "TaskpressKit",
      dependencies: ["SQLite", "Mustache", "CCmark", "CVipsShim", "JSONEscaping"],
      resources: []
    ),
    .target(name: "Server", dependencies: ["JSONEscaping"]),
    .target(
      name: "TaskpressCLI", dependencies: ["TaskpressKit", "Mustache", "Server", "JSONEscaping"]),
    .executableTarget(name: "taskpress", dependencies: ["TaskpressCLI"]),
    .target(name: "CTestSupport", path: "Tests/CTestSupport"),
    // What the tests of several targets share: real PNG files, the sample databases and the
    // apps' databases (read through #filePath, so not resources), the questions about the machine.
    .target(name: "TestFixtures", path: "Tests/TestFixtures", exclude: ["sample-dbs", "apps"]),
    .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestFixtures"]),
    .testTarget(
      name: "MustacheTests",
      dependencies: ["Mustache"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "TaskpressKitTests",
      dependencies: [
        "TaskpressKit", "SQLite", "Mustache", "CCmark", "CVipsShim", "JSONEscaping", "TestFixtures",
      ],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "TaskpressCLITests",
      // "taskpress": the tests run the binary as a child process, so `swift test` builds it.
      dependencies: [
        "TaskpressCLI", "TaskpressKit", "SQLite", "taskpress", "CTestSupport", "TestFixtures",
      ]),
    .testTarget(name: "ServerTests", dependencies: ["Server", "TestFixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
