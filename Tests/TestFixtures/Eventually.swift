import Foundation

/// Waits until `condition` holds, polling every 50 ms: the one way the tests wait for something
/// another thread or process does (a server's output, a file it writes). The cap (1,200 polls) is
/// generous, not a time the test is about; reaching it returns false, for the test to fail on.
public func eventually(_ condition: () -> Bool) -> Bool {
  for _ in 0..<1200 {
    if condition() { return true }
    usleep(50_000)
  }
  return condition()
}
