import TaskpressCLI

#if canImport(Glibc)
  import Glibc
#endif

let status = TaskpressCLI.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
