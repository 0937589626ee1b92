import Foundation

/// The real sample databases of the tutorial app, kept in the repository with their provenance
/// (`Tests/TestFixtures/sample-dbs/`: README, SOURCE and LICENSE notes), so a clone's tests need
/// nothing beside it.
public enum SampleDatabases {
  /// The folder of the six `.sqlite` files (and nothing else).
  public static let folder = URL(filePath: #filePath).deletingLastPathComponent()
    .appending(path: "sample-dbs/icodeblog-todo")

  /// The path of sample database `name` (a file name in `folder`).
  public static func path(_ name: String) -> String {
    folder.appending(path: name).path
  }

  /// Each sample database's file name with the number of to-dos it holds.
  public static let todoCounts = [
    "IdeaCore_todo_13e068b_todo.sqlite": 4,
    "aquillano_Todo_669e405_todo.sqlite": 4,
    "lbain_Todo-Fun_4a173f4_todo2.sqlite": 1,
    "lbain_Todo-Fun_f61d735_todo1.sqlite": 3,
    "photon-labs_todolist_4f94c00_todo.sqlite": 4,
    "photon-labs_todolist_7c71ac1_build_todo.app_todo.sqlite": 4,
  ]
}
