extension Parser {
  // MARK: - Tree

  fileprivate struct Frame {
    var opener: Token
    var nodes: [Node] = []
  }

  func buildTree(_ tokens: [Token]) throws(TemplateError) -> [Node] {
    var stack = [Frame(opener: Token(kind: .ignored, start: 0, end: 0))]
    for token in tokens {
      switch token.kind {
      case .text:
        let bytes = source[token.start..<token.end]
        if case .text(let previous) = stack[stack.count - 1].nodes.last {
          stack[stack.count - 1].nodes[stack[stack.count - 1].nodes.count - 1] = .text(
            previous + bytes)
        } else {
          stack[stack.count - 1].nodes.append(.text(Array(bytes)))
        }
      case .lineStart:
        stack[stack.count - 1].nodes.append(.lineStart)
      case .variable(let escaped):
        stack[stack.count - 1].nodes.append(
          .variable(Name(token.name), escaped ? escaping : .none))
      case .partial:
        stack[stack.count - 1].nodes.append(.partial(partialCall(token)))
      case .section, .parent, .block:
        if stack.count > Self.maximumDepth {
          throw error(.nestedTooDeeply(limit: Self.maximumDepth), at: token.start)
        }
        stack.append(Frame(opener: token))
      case .close:
        guard stack.count > 1, let frame = stack.popLast() else {
          throw error(.unopenedClosingTag(token.name), at: token.start)
        }
        guard frame.opener.name == token.name else {
          throw error(
            .mismatchedClosingTag(closing: token.name, open: frame.opener.name), at: token.start)
        }
        stack[stack.count - 1].nodes.append(node(for: frame, closedBy: token))
      case .ignored:
        break
      }
    }
    if stack.count > 1, let open = stack.last {
      throw error(.unclosedSection(open.opener.name), at: open.opener.start)
    }
    return stack[0].nodes
  }

  private func node(for frame: Frame, closedBy closing: Token) -> Node {
    let opener = frame.opener
    switch opener.kind {
    case .section(let inverted):
      return .section(
        Section(
          name: Name(opener.name), isInverted: inverted, nodes: frame.nodes,
          location: location(of: opener.start)))
    case .parent:
      var arguments: [String: Block] = [:]
      for case .block(let block) in frame.nodes where arguments[block.name] == nil {
        arguments[block.name] = block
      }
      return .parent(ParentCall(call: partialCall(opener), arguments: arguments))
    default:
      guard opener.isStandalone else {
        return .block(Block(name: opener.name, nodes: frame.nodes, isStandalone: false, indent: []))
      }
      // A standalone block's content loses its common indentation here and gets the
      // indentation of the place it is expanded into.
      var nodes = frame.nodes
      let start = opener.contentStart
      let end = max(start, closing.contentEnd)
      let prefix = commonIndentation(start, end)
      Self.dedent(&nodes, by: prefix.count)
      return .block(
        Block(
          name: opener.name, nodes: nodes, isStandalone: true,
          indent: prefix.isEmpty ? opener.indent : prefix))
    }
  }

  private func partialCall(_ token: Token) -> PartialCall {
    let isDynamic = token.name.hasPrefix("*")
    let name = isDynamic ? String(token.name.dropFirst()) : token.name
    return PartialCall(
      name: name, dynamicName: isDynamic ? Name(name) : nil,
      indent: token.isStandalone ? token.indent : [], location: location(of: token.start))
  }

  /// The longest run of spaces and tabs that starts every non-blank line in `start..<end`.
  private func commonIndentation(_ start: Int, _ end: Int) -> [UInt8] {
    var common: [UInt8]?
    var lineStart = start
    while lineStart < end {
      var lineEnd = lineStart
      while lineEnd < end, source[lineEnd] != 0x0A { lineEnd += 1 }
      var contentStart = lineStart
      while contentStart < lineEnd, source[contentStart] == 0x20 || source[contentStart] == 0x09 {
        contentStart += 1
      }
      let isBlank =
        contentStart == lineEnd || (contentStart + 1 == lineEnd && source[contentStart] == 0x0D)
      if !isBlank {
        let indentation = source[lineStart..<contentStart]
        if let current = common {
          common = Array(zip(current, indentation).prefix(while: { $0 == $1 }).map(\.0))
        } else {
          common = Array(indentation)
        }
      }
      lineStart = lineEnd + 1
    }
    return common ?? []
  }

  /// Removes up to `count` leading spaces and tabs from each line of `nodes`.
  private static func dedent(_ nodes: inout [Node], by count: Int) {
    guard count > 0 else { return }
    var afterLineStart = false
    for index in nodes.indices {
      switch nodes[index] {
      case .lineStart:
        afterLineStart = true
        continue
      case .text(let bytes) where afterLineStart:
        var drop = 0
        while drop < count, drop < bytes.count, bytes[drop] == 0x20 || bytes[drop] == 0x09 {
          drop += 1
        }
        nodes[index] = .text(Array(bytes[drop...]))
      case .section(var section):
        dedent(&section.nodes, by: count)
        nodes[index] = .section(section)
      case .partial(var call):
        call.indent = Array(call.indent.dropFirst(count))
        nodes[index] = .partial(call)
      case .parent(var parent):
        parent.call.indent = Array(parent.call.indent.dropFirst(count))
        for (name, argument) in parent.arguments {
          parent.arguments[name] = dedented(argument, by: count)
        }
        nodes[index] = .parent(parent)
      case .block(let block):
        nodes[index] = .block(dedented(block, by: count))
      case .text, .variable:
        break
      }
      afterLineStart = false
    }
  }

  private static func dedented(_ block: Block, by count: Int) -> Block {
    var block = block
    // A standalone block already removed its own indentation, which includes this one.
    if block.isStandalone {
      block.indent = Array(block.indent.dropFirst(count))
    } else {
      dedent(&block.nodes, by: count)
    }
    return block
  }
}
