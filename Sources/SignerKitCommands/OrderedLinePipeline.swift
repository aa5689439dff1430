import Synchronization

/// One input line and its 1-based number.
struct NumberedLine: Sendable {
    /// 1 for the first line.
    let number: Int
    /// The line without its terminator.
    let bytes: [UInt8]
}

/// What one line gave: its output line (`nil` for a line that gets none, such as a blank one) and
/// whether it failed.
struct LineOutcome: Sendable {
    /// The output line without its newline, or `nil`.
    var text: String?
    /// Whether the line failed (the command's exit status is then 1).
    var failed: Bool
}

/// Runs a per-line transformation over a stream of lines on several workers and writes the results
/// strictly in input order, as soon as each one and every earlier one are done.
///
/// Lines are handed out in chunks (up to 1024 lines or 1 MiB, and earlier when the next read would wait
/// for input), at most `workers` chunks are worked on at once, and reading never runs more than
/// `2 × workers` chunks ahead of writing: memory stays bounded however long the input is, and the
/// first results appear before the last line is read. With one worker, lines are transformed on the
/// calling task, one after another.
///
/// Each chunk's lines share one `Context` made for that chunk (with one worker, one for all lines): state a
/// transformation keeps at hand between lines, such as a parser's last schema, without sharing it across
/// workers.
struct OrderedLinePipeline {
    /// How many chunks are transformed at once.
    let workers: Int
    /// The most lines in one chunk.
    var chunkLines = 1024
    /// The most line bytes in one chunk.
    var chunkBytes = 1 << 20

    /// Transforms every line of `reader` and hands `emit` the output text (whole lines, each ending
    /// in `\n`), in input order.
    ///
    /// - Returns: whether any line failed.
    /// - Throws: the reader's failure, after every line read before it has been written.
    func run<Context>(
        _ reader: LineReader, makeContext: @escaping @Sendable () -> Context,
        transform: @escaping @Sendable (NumberedLine, Context) async -> LineOutcome,
        emit: @escaping @Sendable (String) -> Void
    ) async throws(CommandFailure) -> Bool {
        if workers <= 1 {
            return try await runInline(reader, context: makeContext(), transform: transform, emit: emit)
        }
        let writer = OrderedWriter(emit: emit)
        let readError: CommandFailure? = await withDiscardingTaskGroup { group in
            var chunk: [NumberedLine] = []
            var bytesInChunk = 0
            var lineNumber = 0
            var nextChunk = 0
            func dispatch() async {
                // At most `workers` chunks running, and reading at most `2 × workers` chunks ahead of writing.
                await writer.waitForRoom(started: nextChunk, running: workers, ahead: 2 * workers)
                let lines = chunk
                let index = nextChunk
                nextChunk += 1
                chunk = []
                chunk.reserveCapacity(chunkLines)
                bytesInChunk = 0
                group.addTask {
                    let context = makeContext()
                    var text = ""
                    var failed = false
                    for line in lines {
                        let outcome = await transform(line, context)
                        failed = failed || outcome.failed
                        if let output = outcome.text {
                            text += output
                            text += "\n"
                        }
                    }
                    writer.finish(index, text: text, failed: failed)
                }
            }
            while true {
                let bytes: [UInt8]?
                do throws(CommandFailure) { bytes = try reader.next() } catch { return error }
                guard let bytes else { break }
                lineNumber += 1
                chunk.append(NumberedLine(number: lineNumber, bytes: bytes))
                bytesInChunk += bytes.count
                if chunk.count >= chunkLines || bytesInChunk >= chunkBytes || !reader.hasBufferedLine() {
                    await dispatch()
                }
            }
            if !chunk.isEmpty { await dispatch() }
            return nil
        }
        if let readError { throw readError }
        return writer.anyFailed
    }

    /// One worker: each line transformed on the calling task; output written in pieces of about 64 KiB,
    /// and before any read that would wait.
    private func runInline<Context>(
        _ reader: LineReader, context: Context, transform: @Sendable (NumberedLine, Context) async -> LineOutcome,
        emit: @Sendable (String) -> Void
    ) async throws(CommandFailure) -> Bool {
        var anyFailed = false
        var output = ""
        var lineNumber = 0
        defer { if !output.isEmpty { emit(output) } }
        while let bytes = try reader.next() {
            lineNumber += 1
            let outcome = await transform(NumberedLine(number: lineNumber, bytes: bytes), context)
            anyFailed = anyFailed || outcome.failed
            if let text = outcome.text {
                output += text
                output += "\n"
            }
            if output.utf8.count >= 65_536 || (!output.isEmpty && !reader.hasBufferedLine()) {
                emit(output)
                output = ""
            }
        }
        return anyFailed
    }
}

/// Writes finished chunks strictly in order: the task that finishes the next chunk to write writes it,
/// and every later one already finished, so output never waits for the reader.
private final class OrderedWriter: Sendable {
    private struct State {
        var nextToWrite = 0
        var finished = 0
        var anyFailed = false
        var waiting: [Int: String] = [:]
        var room: CheckedContinuation<Void, Never>?
        var roomCondition: (started: Int, running: Int, ahead: Int)?
    }

    private let state = Mutex(State())
    private let emit: @Sendable (String) -> Void

    init(emit: @escaping @Sendable (String) -> Void) {
        self.emit = emit
    }

    /// Whether any finished chunk had a failed line.
    var anyFailed: Bool { state.withLock { $0.anyFailed } }

    /// Records chunk `index` and writes it, with every following chunk already finished, when it is next.
    /// Writing happens under the lock, so pieces never interleave or reorder.
    func finish(_ index: Int, text: String, failed: Bool) {
        let resume = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished += 1
            state.anyFailed = state.anyFailed || failed
            state.waiting[index] = text
            while let ready = state.waiting.removeValue(forKey: state.nextToWrite) {
                if !ready.isEmpty { emit(ready) }
                state.nextToWrite += 1
            }
            guard let condition = state.roomCondition, Self.hasRoom(state, condition) else { return nil }
            state.roomCondition = nil
            defer { state.room = nil }
            return state.room
        }
        resume?.resume()
    }

    /// Returns once fewer than `running` of the `started` chunks are unfinished and fewer than `ahead`
    /// are unwritten.
    func waitForRoom(started: Int, running: Int, ahead: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                let condition = (started, running, ahead)
                if Self.hasRoom(state, condition) { return true }
                state.room = continuation
                state.roomCondition = condition
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func hasRoom(_ state: State, _ condition: (started: Int, running: Int, ahead: Int)) -> Bool {
        condition.started - state.finished < condition.running
            && condition.started - state.nextToWrite < condition.ahead
    }
}
