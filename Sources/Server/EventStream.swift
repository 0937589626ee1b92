import Synchronization

/// The open Server-Sent Events connections, and the state each newcomer is told first.
///
/// Sends never block: an event is a few dozen bytes, so a client whose send buffer is full has
/// stopped reading, and it is dropped.
final class EventStream: Sendable {
  private struct Clients {
    var sockets: [Socket] = []
    var state: [UInt8] = []
  }

  private let clients = Mutex(Clients())
  let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// The number of open streams.
  var count: Int { clients.withLock { $0.sockets.count } }

  /// Takes over `socket`, whose response head is sent, and tells it the current state; false
  /// when the stream is full.
  func add(_ socket: Socket) -> Bool {
    clients.withLock { clients in
      guard clients.sockets.count < capacity else { return false }
      // Reconnect quickly after a restart of the server.
      guard socket.send(Array("retry: 500\n\n".utf8) + clients.state, wait: false) else {
        return true
      }
      clients.sockets.append(socket)
      return true
    }
  }

  /// Sends `event` with `data` (one line) to every client, and keeps it for newcomers when
  /// `retain` is true.
  func publish(event: String, data: String, retain: Bool = true) {
    let bytes = Array("event: \(event)\ndata: \(data)\n\n".utf8)
    send(bytes, retain: retain)
  }

  /// A comment line, which finds clients that went away.
  func ping() {
    send(Array(": ping\n\n".utf8), retain: false)
  }

  /// Closes every stream.
  func closeAll() {
    clients.withLock { $0.sockets.removeAll() }
  }

  private func send(_ bytes: [UInt8], retain: Bool) {
    clients.withLock { clients in
      if retain { clients.state = bytes }
      clients.sockets.removeAll { !$0.send(bytes, wait: false) }
    }
  }
}
