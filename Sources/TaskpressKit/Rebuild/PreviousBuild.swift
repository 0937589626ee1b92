import Dispatch
import Foundation
import Synchronization

/// What the previous build published, read back to compare with: the data copies
/// (`data/todos.json`, ...) as its snapshot, or, for a source whose copies are not published,
/// the snapshot kept in taskpress's state folder beside it; and the history it carried.
struct PreviousBuild: Sendable, Equatable {
  struct Todo: Codable, Sendable, Equatable {
    var pk: Int64
    var text: String
    var priority: Int64?
    var complete: Bool
    /// The due date, nil when it had none.
    var due: String? = nil
    /// Whether the copy had the field (its site had due dates): a build whose previous copy
    /// had none compares no due dates.
    var hasDueField = false
    /// The text key (`TodoKey`); nil when the key is a number.
    var key: String? = nil

    enum CodingKeys: String, CodingKey {
      case pk, text, priority, complete, due
    }

    init(
      pk: Int64, text: String, priority: Int64?, complete: Bool, key: String? = nil,
      due: String? = nil, hasDueField: Bool = false
    ) {
      self.pk = pk
      self.text = text
      self.priority = priority
      self.complete = complete
      self.key = key
      self.due = due
      self.hasDueField = hasDueField
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      if let number = try? container.decode(Int64.self, forKey: .pk) {
        pk = number
      } else {
        (pk, key) = TodoKey.read(try container.decode(String.self, forKey: .pk))
      }
      text = try container.decode(String.self, forKey: .text)
      priority = try container.decodeIfPresent(Int64.self, forKey: .priority)
      complete = try container.decode(Bool.self, forKey: .complete)
      hasDueField = container.contains(.due)
      due = try container.decodeIfPresent(String.self, forKey: .due)
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      if let key {
        try container.encode(key, forKey: .pk)
      } else {
        try container.encode(pk, forKey: .pk)
      }
      try container.encode(text, forKey: .text)
      try container.encode(priority, forKey: .priority)
      try container.encode(complete, forKey: .complete)
      if hasDueField { try container.encode(due, forKey: .due) }
    }
  }

  struct Possession: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var description: String?
    var photo: String?
  }

  struct Contact: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var address: String?
    var phone: String?
  }

  var todos: PreviousTodos?
  /// In place of `todos`, with `recordedCopy`: the copy of the to-dos, still the file its build
  /// recorded, of which this build reads the rows that changed (`TodoCopy.differingRows`).
  var todoCopy: TodoCopy?
  /// The to-dos once compared with this build's (`ChangeDiff.comparingTodos`), in place of
  /// their rows.
  var comparedTodos: ComparedTodos?
  var possessions: [Possession]?
  var contacts: [Contact]?
  var history: HistoryFile?
  var changes: ChangesFile?
  /// Each to-do's history (`data/todo-history.json`).
  var todoHistory: TodoHistory?
  /// What could not be compared, as warnings.
  var warnings: [BuildWarning] = []
  /// The header of the state folder's records (`StateRecords`) this was read with, when any of
  /// them was used: the build checks it against the records in force for its manifest.
  var recordsHeader: [UInt8]?

  /// What the comparison of the previous to-dos with this build's keeps of them: their
  /// changes, and their counts when the history has no builds (the report counts them then).
  struct ComparedTodos: Sendable, Equatable {
    var changes: [Change]
    var counts: TodoCounts?
  }

  /// Whether there was nothing to compare with: the site's first build.
  var isEmpty: Bool {
    todos == nil && todoCopy == nil && comparedTodos == nil && possessions == nil
      && contacts == nil && history == nil && todoHistory == nil
  }

  /// The name of a source's snapshot in the state folder.
  static func snapshotName(_ source: Change.Source) -> String { "snapshot-\(source.rawValue).json" }

  /// Reads the previous build in the site folder `site`, whose state folder is `state`, for the
  /// sources this build publishes. A file that is there but not what taskpress writes is an
  /// error naming it; a site with no such files is a first build. With `explicit` (the folder
  /// came from `--previous`), a folder without any is a warning. With `copyReader`, a data copy
  /// in the form taskpress writes is read by `DataCopyReader` (`RenderPaths.copyReader`), any
  /// other by `JSONDecoder`; without, every one by `JSONDecoder`. With `recordedCopy`, a copy
  /// of the to-dos that is still the file its build recorded (`TodoCopyRecord`, in `state`) is
  /// left to be read in part (`todoCopy`), unless the history has no builds (its counts are
  /// then needed).
  static func read(
    site: String, state: String?, sources: Set<Change.Source>, explicit: Bool,
    copyReader: Bool = true, recordedCopy: Bool = false, recordsHeader: [UInt8]?? = nil
  ) throws -> PreviousBuild {
    var previous = PreviousBuild()
    // The header of the records in force in the state folder: as given, else as its index says
    // (checked against the manifest by the caller, `recordsHeader`).
    let header = recordsHeader ?? state.flatMap(StateRecords.indexHeader(statePath:))
    let data = site == "." ? "data/" : site + "/data/"
    func snapshot<T: Decodable>(
      _ source: Change.Source, _ type: T.Type,
      _ reader: @escaping (inout DataCopyReader.Pieces) -> T?
    ) throws -> T? {
      guard sources.contains(source) else { return nil }
      let reader = copyReader ? reader : nil
      if let found = try decode(type, at: data + source.rawValue + ".json", "data", reader) {
        return found
      }
      guard let state, let header else { return nil }
      let found = try decode(
        type, at: state + "/" + snapshotName(source), "data", reader, header: header)
      if found != nil { previous.recordsHeader = header }
      return found
    }
    let todoPath = data + Change.Source.todos.rawValue + ".json"
    if recordedCopy, !explicit, sources.contains(.todos), let state,
      let record = FileManager.default.contents(atPath: state + "/" + TodoCopyRecord.fileName)
        .flatMap({ StateRecords.body(Array($0), header: header) })
        .flatMap(TodoCopyRecord.init(bytes:)),
      let copy = TodoCopy(path: todoPath, record: record)
    {
      previous.todoCopy = copy
      previous.recordsHeader = header
    } else {
      previous.todos = try snapshot(.todos, PreviousTodos.self, DataCopyReader.todos)
    }
    previous.possessions = try snapshot(
      .possessions, [Possession].self, DataCopyReader.possessions)
    previous.contacts = try snapshot(.contacts, [Contact].self, DataCopyReader.contacts)
    if let history = try decode(HistoryFile.self, at: data + "history.json", "history") {
      guard history.format == HistoryFile.currentFormat else {
        throw unreadable(
          data + "history.json", "history",
          "its format is '\(history.format)', not '\(HistoryFile.currentFormat)'")
      }
      previous.history = history
    }
    if let changes = try decode(ChangesFile.self, at: data + "changes.json", "changes") {
      guard changes.format == ChangesFile.currentFormat else {
        throw unreadable(
          data + "changes.json", "changes",
          "its format is '\(changes.format)', not '\(ChangesFile.currentFormat)'")
      }
      previous.changes = changes
    }
    let todoHistoryPath = data + TodoHistory.fileName
    if sources.contains(.todos), copyReader,
      let bytes = FileManager.default.contents(atPath: todoHistoryPath),
      let history = bytes.withUnsafeBytes(TodoHistory.parse)
    {
      // In the form taskpress writes: read in one pass (`RenderPaths.copyReader`).
      previous.todoHistory = history
    } else if sources.contains(.todos),
      let file = try decode(TodoHistory.File.self, at: todoHistoryPath, "to-do history")
    {
      let path = todoHistoryPath
      guard file.format == TodoHistory.currentFormat else {
        throw unreadable(
          path, "to-do history",
          "its format is '\(file.format)', not '\(TodoHistory.currentFormat)'")
      }
      guard let history = TodoHistory(file) else {
        throw unreadable(path, "to-do history", "its builds or to-dos are not in increasing order")
      }
      previous.todoHistory = history
    }
    // The report counts the previous to-dos when the history has no builds: all are read.
    if let copy = previous.todoCopy, previous.history?.builds.isEmpty ?? true {
      previous.todoCopy = nil
      previous.todos = try readTodos(copy, copyReader: copyReader)
    }
    // A source the last recorded build had but whose snapshot is gone is not compared.
    let last = previous.history?.builds.last
    for (source, had, found) in [
      (
        Change.Source.todos, last?.todos != nil,
        previous.todos != nil || previous.todoCopy != nil
      ),
      (.possessions, last?.possessions != nil, previous.possessions != nil),
      (.contacts, last?.contacts != nil, previous.contacts != nil),
    ] where sources.contains(source) && had && !found {
      previous.warnings.append(
        BuildWarning(
          file: data + source.rawValue + ".json",
          message:
            "the previous build's \(source.rawValue) are not there (nor a snapshot in its state "
            + "folder), so their changes are not recorded this time; publish their data copies "
            + "(--data) to compare with a copy of the site"))
    }
    if explicit, previous.isEmpty {
      previous.warnings.append(
        BuildWarning(
          file: site,
          message:
            "holds no data of a taskpress build (data/history.json, data/todos.json, ...), so "
            + "the history of changes starts with this build"))
    }
    return previous
  }

  /// Every to-do of `copy`, read as `read` reads a copy of the to-dos.
  static func readTodos(_ copy: TodoCopy, copyReader: Bool) throws -> PreviousTodos? {
    let reader: (inout DataCopyReader.Pieces) -> PreviousTodos? = DataCopyReader.todos
    return try decode(PreviousTodos.self, at: copy.path, "data", copyReader ? reader : nil)
  }

  /// The file at `path` decoded as `T`: by `reader` when it reads it, piece by piece (see
  /// `DataCopyReader.Pieces`: a large copy is never in memory whole), else read whole by
  /// `JSONDecoder`; nil when there is no such file.
  private static func decode<T: Decodable>(
    _ type: T.Type, at path: String, _ what: String,
    _ reader: ((inout DataCopyReader.Pieces) -> T?)? = nil, header: [UInt8]? = nil
  ) throws -> T? {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
    if let header {
      // A record of the state folder (`StateRecords`): of the records in force, or ignored.
      guard !isFolder.boolValue,
        let bytes = FileManager.default.contents(atPath: path).map(Array.init),
        let body = StateRecords.body(bytes, header: header)
      else { return nil }
      return try decode(type, from: Data(body), at: path, what, nil)
    }
    if let reader, !isFolder.boolValue {
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      if fd >= 0 {
        defer { close(fd) }
        var pieces = DataCopyReader.Pieces { buffer in
          while true {
            let count = System.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 || errno != EINTR { return count }
          }
        }
        if let found = reader(&pieces) { return found }
      }
    }
    let bytes: Data
    do {
      guard !isFolder.boolValue else { throw CocoaError(.fileReadUnknown) }
      bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw unreadable(path, what, "it cannot be read")
    }
    // Not in the form the reader reads (or unreadable): the decoder's reading and errors.
    return try decode(type, from: bytes, at: path, what, nil)
  }

  /// `bytes`, the file at `path`, decoded as `T`: by `reader` when it reads them, else by
  /// `JSONDecoder`.
  static func decode<T: Decodable>(
    _ type: T.Type, from bytes: Data, at path: String, _ what: String,
    _ reader: ((UnsafeRawBufferPointer) -> T?)?
  ) throws -> T {
    if let reader, let found = bytes.withUnsafeBytes(reader) {
      return found
    }
    do {
      return try JSONDecoder().decode(type, from: bytes)
    } catch let error as DecodingError {
      throw unreadable(path, what, describe(error))
    }
  }

  private static func unreadable(_ path: String, _ what: String, _ detail: String) -> BuildError {
    BuildError(
      "\(path): not the previous build's \(what) as taskpress writes it (\(detail)); delete it "
        + "to start the record of changes afresh, or give --previous a copy of the last "
        + "published site")
  }

  /// A decoding error in a few words, naming where in the file.
  static func describe(_ error: DecodingError) -> String {
    func place(_ path: [any CodingKey]) -> String {
      var text = ""
      for key in path {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += text.isEmpty ? key.stringValue : "." + key.stringValue
        }
      }
      return text.isEmpty ? "the top level" : "'\(text)'"
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "\(place(context.codingPath)) has no '\(key.stringValue)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(place(context.codingPath)) is not what taskpress writes there"
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty
        ? "not valid JSON" : "\(place(context.codingPath)) is not what taskpress writes there"
    @unknown default:
      return "not valid JSON"
    }
  }
}

/// The last build, read once after the output folder is locked: the records its commit left in
/// the state folder (`LastRecords`: the inputs, photos, fingerprints, rows and card, under the
/// records in force for the manifest), which the build's parts take from here (`records`); and
/// the last build as this build compares with it: its data copies, snapshots and history
/// (`Build.readPrevious`), read again under the records in force for the manifest when those it
/// was read under are not, and the to-dos of the copy the last build recorded (only the rows
/// that differ from this build's, when it can).
///
/// A build that reads early starts the reading of the data on a thread of its own as soon as
/// the folder is locked, beside the loading of the manifest (`start`); another reads it on its
/// own thread while the to-dos are read (`read`). Either way the build takes it once (`take`),
/// after its sources, whose errors come first. The records are read once the manifest is
/// loaded (`load(from:)`), whose header they are read under.
final class LastBuild: Sendable {
  private let options: BuildOptions
  private let result = Mutex<Result<PreviousBuild, any Error>?>(nil)
  private let loaded = Mutex<LastRecords?>(nil)

  init(_ options: BuildOptions) {
    self.options = options
  }

  /// Reads the records the last build's commit left for the manifest `writer` loaded (the
  /// folder locked): once, before any part of the build asks for them (`records`).
  @discardableResult
  func load(from writer: OutputWriter) -> LastRecords {
    let records = LastRecords(writer: writer)
    loaded.withLock { $0 = records }
    return records
  }

  /// The records read by `load(from:)`; none before it.
  var records: LastRecords {
    loaded.withLock { $0 } ?? LastRecords()
  }

  /// Starts reading it on a thread of `group`.
  func start(in group: DispatchGroup) {
    let options = options
    DispatchQueue.global().async(group: group) {
      let read = Result { try Build.readPrevious(options) }
      self.result.withLock { $0 = read }
    }
  }

  /// Reads it on this thread; an error is kept for `take`.
  func read() {
    let read = Result { try Build.readPrevious(options) }
    result.withLock { $0 = read }
  }

  /// The last build as read (an empty one when it was not read), and the positions in `rows`
  /// of the to-dos that differ from those of the recorded copy, when only those of it were
  /// read (`TodoCopy.differingRows`; nil when the whole copy was read). A build given no
  /// `--previous` whose read used state records other than those in force for the manifest
  /// (`records.header`, `OutputWriter.recordsHeader`) reads it again under those.
  /// - Throws: the read's error.
  func take(
    comparingWith rows: TodoRows?, copyReader: Bool, key: HashKey
  ) throws -> (previous: PreviousBuild, differing: [Int]?) {
    let recordsHeader = records.header
    // Moved out of the result, so that no copy of its rows outlives `previous`.
    var previous = try result.withLock { $0.take() }?.get() ?? PreviousBuild()
    if options.previous == nil, let used = previous.recordsHeader, used != recordsHeader {
      // Read beside the manifest's loading under records that are not of that manifest: again,
      // under those that are (none, when none is).
      previous = try Build.readPrevious(options, recordsHeader: .some(recordsHeader))
    }
    let differing = try Self.readTodoCopy(
      of: &previous, comparingWith: rows, copyReader: copyReader, key: key)
    return (previous, differing)
  }

  /// Reads the to-dos of `previous.todoCopy`, if any, into `previous.todos`: those that differ
  /// from `rows` (when given, in pk order, and few; `TodoCopy.differingRows`), whose positions
  /// in `rows` it returns, else all of them (and returns nil).
  private static func readTodoCopy(
    of previous: inout PreviousBuild, comparingWith rows: TodoRows?, copyReader: Bool,
    key: HashKey
  ) throws -> [Int]? {
    guard let copy = previous.todoCopy.take() else { return nil }
    if let rows, rows.isInPKOrder, let found = copy.differingRows(rows, key: key) {
      previous.todos = found.old
      return found.positions
    }
    previous.todos = try PreviousBuild.readTodos(copy, copyReader: copyReader)
    return nil
  }
}
