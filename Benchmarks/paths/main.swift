// The paths kept for speed, each against the general path it stands in
// for, in one run: what a kept path gains, in ns per call and as a share
// of the end-to-end row it serves, measured in the same run. A path that
// gains less than 3% of its row is not worth its code (docs/architecture.md,
// "Paths kept for speed"). Each path must give the general path's result
// before it is timed.
//
// Usage: yaia-bench-paths PATH_TO_libyaia-examples.so NOTES_DOCUMENTS [NAME]
// Naming a path (send, action, general-action, jobs, commands,
// general-commands, checked-action, built-action, execute, logic, general-logic, search, general-search,
// request, general-request)
// runs only it, 200,000 calls untimed (2,000 for the searches and the
// requests): for callgrind.
#if canImport(Glibc)
import Glibc
#endif
import CYaia
import YaiaABI
import YaiaCore
import YaiaKit
import YaiaRuntime

let batches = 31
let minimumGain = 3.0

func fail(_ message: String) -> Never {
    var text = "yaia-bench-paths: " + message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func nowNs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

/// Calls per batch: the first count (a power of two) taking about 10 ms.
@MainActor func callsPerBatch(_ call: () -> Void) -> Int {
    var calls = 64
    while true {
        let start = nowNs()
        for _ in 0..<calls { call() }
        if nowNs() - start >= 10e6 || calls >= 1 << 24 { return calls }
        calls *= 2
    }
}

/// The median ns per call of each of `calls` over `batches` batches, their
/// batches taken in turn: a machine's load weighs on each alike.
@MainActor func medianNs(_ calls: [() -> Void]) -> [Double] {
    let counts = calls.map(callsPerBatch)
    var samples = calls.map { _ in [Double]() }
    for _ in 0..<batches {
        for (i, call) in calls.enumerated() {
            let start = nowNs()
            for _ in 0..<counts[i] { call() }
            samples[i].append((nowNs() - start) / Double(counts[i]))
        }
    }
    return samples.map { $0.sorted()[batches / 2] }
}

let usage = "usage: yaia-bench-paths PATH_TO_libyaia-examples.so NOTES_DOCUMENTS [NAME]"
guard CommandLine.arguments.count >= 3 else { fail(usage) }
let pack = CommandLine.arguments[1], documents = CommandLine.arguments[2]
for path in [pack, documents] where path.contains("\"") || path.contains("\\") {
    fail("no quotes or backslashes in the path: \(path)")
}
let only = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil

var sink = 0

// yaia_send on example/login, as bench_send measures it.
var error: UnsafeMutablePointer<CChar>?
guard let rt = yaia_runtime_new("{\"scenes\":[\"\(pack)\"]}", &error) else { fail("no runtime with \(pack)") }
func answer(_ r: UnsafeMutablePointer<CChar>?) -> String {
    defer { yaia_free(r) }
    return r.map { String(cString: $0) } ?? ""
}
let opened = answer(yaia_open(rt, "example/login", nil))
guard opened.contains("\"ok\":true"), let sceneText = opened.split(separator: "\"scene\":").dropFirst().first,
      let scene = Int64(sceneText.prefix { $0.isNumber }) else { fail("cannot open example/login: \(opened)") }
let loginAction = #"{"type":"emailChanged","payload":"a@b.c"}"#
guard answer(yaia_send(rt, scene, loginAction)).contains("\"ok\":true") else { fail("the measured send fails") }
@MainActor func send() {
    let r = yaia_send(rt, scene, loginAction)
    sink &+= Int(r?[0] ?? 0)
    yaia_free(r)
}

// The action of that send, read from its text straight or through a tree.
let actionBytes = Array(loginAction.utf8)
@MainActor func parsedAction() -> Action? {
    actionBytes.withUnsafeBufferPointer { try? Action(parsing: $0) }
}
@MainActor func generalAction() -> Action? {
    actionBytes.withUnsafeBufferPointer { bytes in try? Action(json: JSONParser.parse(bytes)) }
}
guard let fast = parsedAction(), fast == generalAction() else { fail("Action(parsing:) and the general path differ") }

// A send whose scene emits an effect (example/jobs, from a pack: its commands
// come as text), and those commands read from the text straight or through a tree.
let jobsOpened = answer(yaia_open(rt, "example/jobs", nil))
guard jobsOpened.contains("\"ok\":true"), let jobsText = jobsOpened.split(separator: "\"scene\":").dropFirst().first,
      let jobs = Int64(jobsText.prefix { $0.isNumber }) else { fail("cannot open example/jobs: \(jobsOpened)") }
// The same key and `latest`: each send replaces the last, so nothing piles up.
let jobsAction = #"{"type":"run","payload":{"service":"nobody","op":"x","id":"k","policy":"latest"}}"#
guard answer(yaia_send(rt, jobs, jobsAction)).contains("\"ok\":true") else { fail("the measured jobs send fails") }
@MainActor func sendJobs() {
    let r = yaia_send(rt, jobs, jobsAction)
    sink &+= Int(r?[0] ?? 0)
    yaia_free(r)
}
let commandBytes = Array(#"[{"effect":{"args":null,"catch":"failed","id":"k","op":"x","policy":"latest","service":"nobody","then":"done"}}]"#.utf8)
@MainActor func textCommands() -> [Command]? {
    commandBytes.withUnsafeBufferPointer { Command.list(from: $0) }
}
@MainActor func generalCommands() -> [Command]? {
    commandBytes.withUnsafeBufferPointer { bytes -> [Command]? in
        guard case .array(let items)? = try? JSONParser.parse(bytes) else { return nil }
        return try? items.map { (item) throws(YaiaError) -> Command in try Command(json: item) }
    }
}
guard let read = textCommands(), read == generalCommands() else { fail("Command.list(from:) and the general path differ") }
// That send's action as yaia_send reads it: its payload checked but not built
// (ActionText: the pack reads the text itself), or built (Action(parsing:)).
let jobsActionBytes = Array(jobsAction.utf8)
@MainActor func checkedAction() -> Int {
    jobsActionBytes.withUnsafeBufferPointer { (try? ActionText(parsing: $0))?.bytes.count ?? 0 }
}
@MainActor func builtAction() -> Action? {
    jobsActionBytes.withUnsafeBufferPointer { try? Action(parsing: $0) }
}
guard let built = builtAction(), jobsActionBytes.withUnsafeBufferPointer({ try? ActionText(parsing: $0).action() }) == built else {
    fail("ActionText and Action(parsing:) differ")
}

// A host evaluating one rule over and over: a plain logic request through
// the rule cache (`Runtime.execute(_:into:)`, as yaia_execute takes it) or
// through the general request path (`execute` to a tree, then written).
let logicRequest = #"{"op":"logic","rule":{"if":[{"<":[{"var":"n"},10]},"small","big"]},"data":{"n":3}}"#
let logicBytes = Array(logicRequest.utf8)
@MainActor func execute() {
    let r = yaia_execute(rt, logicRequest)
    sink &+= Int(r?[0] ?? 0)
    yaia_free(r)
}
let logicRuntime = Runtime(catalog: Catalog())
var logicWriter = JSONWriter()
@MainActor func cachedLogic() {
    logicWriter.reset()
    logicBytes.withUnsafeBufferPointer { logicRuntime.execute($0, into: &logicWriter) }
    sink &+= logicWriter.byteCount
}
@MainActor func generalLogic() {
    logicWriter.reset()
    logicBytes.withUnsafeBufferPointer { logicWriter.write(logicRuntime.execute($0)) }
    sink &+= logicWriter.byteCount
}
@MainActor func logicAnswer(_ run: () -> Void) -> String {
    run()
    return logicWriter.withBytes { String(decoding: $0, as: UTF8.self) }
}
let viaCache = logicAnswer(cachedLogic)
guard viaCache == logicAnswer(cachedLogic), viaCache == logicAnswer(generalLogic), viaCache.contains("\"small\"") else {
    fail("the logic rule cache and the general path answer differently")
}

// A search keystroke in the notes' list as scene documents, over 1,000
// notes, and its view's rule (list.json's "shown") fused or not (LogicSearch).
let notes = 1_000
func note(_ i: Int) -> JSON {
    let words = ["lyon", "bank", "milk", "train", "garden", "tax", "piano", "paint", "dentist", "books"]
    let word = words[i % words.count], other = words[(i * 7) % words.count]
    return ["id": .int(Int64(i)), "title": .string(word.prefix(1).uppercased() + word.dropFirst() + " \(i)"),
            "body": .string("About \(word) and \(other), number \(i).\nSecond line of note \(i), to be cut from the preview.")]
}
let noteList = JSON.array(JSONArray((1...notes).map(note)))
guard let listRuntime = yaia_runtime_new("{\"scenes\":[\"\(documents)\"]}", &error) else { fail("no runtime with \(documents)") }
let listOpened = answer(yaia_open(listRuntime, "notes/list", #"{"user":{"email":"ada@example.com"}}"#))
guard listOpened.contains("\"ok\":true"), let listText = listOpened.split(separator: "\"scene\":").dropFirst().first,
      let list = Int64(listText.prefix { $0.isNumber }) else { fail("cannot open notes/list: \(listOpened)") }
var loaded = JSONWriter()
loaded.write(["type": "loaded", "payload": ["items": .array(JSONArray((1...notes).map { ["key": .string("note/\($0)"), "value": note($0)] }))]])
let loadedText = loaded.withBytes { String(decoding: $0, as: UTF8.self) }
guard answer(yaia_send(listRuntime, list, loadedText)).contains("\"ok\":true") else {
    fail("the notes do not load")
}
let queries = [#"{"type":"searchChanged","payload":"l"}"#, #"{"type":"searchChanged","payload":"ly"}"#]
var typed = 0
@MainActor func search() {
    typed &+= 1
    let r = yaia_send(listRuntime, list, queries[typed & 1])
    sink &+= Int(r?[0] ?? 0)
    yaia_free(r)
}
// The rule as the list's document has it: its view's "shown".
guard let listText = readFile(documents + "/list.json"), let listDocument = try? listText.withUnsafeBufferPointer({ try JSONParser.parse($0) }),
      let shownRule = listDocument["view"]?["shown"] else { fail("no view member \"shown\" in \(documents)/list.json") }
let searchData: JSON = ["state": ["notes": noteList, "query": "Ly"]]
guard let fusedSearch = try? LogicRule(shownRule), let generalSearch = try? LogicRule(unfused: shownRule) else {
    fail("the search rule does not compile")
}
@MainActor func shown(_ rule: LogicRule) -> Int {
    guard case .array(let ids)? = try? rule.evaluate(searchData) else { return -1 }
    return ids.count
}
guard case let found = shown(fusedSearch), found > 0, found == shown(generalSearch),
      (try? fusedSearch.evaluate(searchData)) == (try? generalSearch.evaluate(searchData)) else {
    fail("the fused search and the general path differ")
}

// A send request to that list through the request path, its update written
// once with its tag (Op.write), or read back into a tree and written again.
guard let requests = try? Runtime(catalog: Catalog(), config: ["scenes": [.string(documents)]]) else { fail("no runtime with \(documents)") }
// SendRequestPathTests holds the two answers equal.
guard case .int(let requestList)? = (try? requests.open("notes/list", args: ["user": ["email": "ada@example.com"]]))?["scene"],
      (try? requests.send(scene: requestList, action: Action("loaded", payload: ["items": .array(JSONArray((1...notes).map {
          ["key": .string("note/\($0)"), "value": note($0)] }))]))) != nil else { fail("the request path's list does not load") }
let searchRequests = ["l", "ly"].map { Array(#"{"op":"send","scene":\#(requestList),"action":{"type":"searchChanged","payload":"\#($0)"},"tag":1}"#.utf8) }
var requestWriter = JSONWriter()
var requested = 0
@MainActor func writtenSend() {
    requested &+= 1
    requestWriter.reset()
    searchRequests[requested & 1].withUnsafeBufferPointer { requests.execute($0, into: &requestWriter) }
    sink &+= requestWriter.byteCount
}
@MainActor func treeSend() {
    requested &+= 1
    requestWriter.reset()
    searchRequests[requested & 1].withUnsafeBufferPointer { requestWriter.write(requests.execute($0)) }
    sink &+= requestWriter.byteCount
}

if let only {
    let slow: [String: @MainActor () -> Void] = ["search": { sink &+= shown(fusedSearch) }, "general-search": { sink &+= shown(generalSearch) },
                                                 "request": writtenSend, "general-request": treeSend]
    if let run = slow[only] {
        for _ in 0..<2_000 { run() }
        exit(sink == 0 ? 1 : 0)
    }
    for _ in 0..<200_000 {
        switch only {
        case "send": send()
        case "action": sink &+= parsedAction() == nil ? 1 : 0
        case "general-action": sink &+= generalAction() == nil ? 1 : 0
        case "jobs": sendJobs()
        case "commands": sink &+= textCommands()?.count ?? 0
        case "general-commands": sink &+= generalCommands()?.count ?? 0
        case "checked-action": sink &+= checkedAction()
        case "built-action": sink &+= builtAction() == nil ? 1 : 0
        case "execute": execute()
        case "logic": cachedLogic()
        case "general-logic": generalLogic()
        default: fail("no path named \(only)")
        }
    }
    exit(sink == 0 ? 1 : 0)
}

// Each path with its general path and the row it serves, batches in turn.
let sendTimes = medianNs([send, { sink &+= parsedAction() == nil ? 1 : 0 }, { sink &+= generalAction() == nil ? 1 : 0 }])
let commandTimes = medianNs([sendJobs, { sink &+= textCommands()?.count ?? 0 }, { sink &+= generalCommands()?.count ?? 0 },
                             { sink &+= checkedAction() }, { sink &+= builtAction() == nil ? 1 : 0 }])
let logicTimes = medianNs([execute, cachedLogic, generalLogic])
let searchTimes = medianNs([search, { sink &+= shown(fusedSearch) }, { sink &+= shown(generalSearch) }])
let requestTimes = medianNs([writtenSend, treeSend])
let sendNs = sendTimes[0], executeNs = logicTimes[0]

struct Row {
    let path: String
    let fast: Double
    let general: Double
    let serves: String
    let rowNs: Double
}

let rows = [
    Row(path: "Action(parsing:) vs Action(json: parse)", fast: sendTimes[1], general: sendTimes[2],
        serves: "yaia_send on example/login", rowNs: sendNs),
    Row(path: "Command.list(from:) vs Command(json: parse)", fast: commandTimes[1], general: commandTimes[2],
        serves: "yaia_send on example/jobs (an effect)", rowNs: commandTimes[0]),
    Row(path: "ActionText vs Action(parsing:)", fast: commandTimes[3], general: commandTimes[4],
        serves: "yaia_send on example/jobs (an effect)", rowNs: commandTimes[0]),
    Row(path: "logic rule cache vs general request path", fast: logicTimes[1], general: logicTimes[2],
        serves: "yaia_execute(logic), a repeated rule", rowNs: executeNs),
    Row(path: "fused search vs lower, then in", fast: searchTimes[1], general: searchTimes[2],
        serves: "a search in notes-documents' list", rowNs: searchTimes[0]),
    Row(path: "a send request written once vs via its tree", fast: requestTimes[0], general: requestTimes[1],
        serves: "that search as a send request", rowNs: requestTimes[0]),
]

print("Paths kept for speed: each against its general path, medians of \(batches) batches (sink \(sink % 10))\n")
print("  " + "end-to-end row".padded(44) + "ns/call".leftPadded(10))
print("  " + "yaia_send on example/login".padded(44) + format(sendNs).leftPadded(10))
print("  " + "yaia_send on example/jobs (an effect)".padded(44) + format(commandTimes[0]).leftPadded(10))
print("  " + "yaia_execute(logic), a repeated rule".padded(44) + format(executeNs).leftPadded(10))
print("  " + "a search in notes-documents' list (\(notes) notes)".padded(44) + format(searchTimes[0]).leftPadded(10))
print("\n  " + "path".padded(44) + "fast".leftPadded(11) + "general".leftPadded(11) + "gain ns".leftPadded(11) + "  verdict")
for row in rows {
    let gain = row.general - row.fast
    let share = gain / row.rowNs * 100
    let verdict = share >= minimumGain ? "kept: gains \(format(share))% of \(row.serves)" : "NOT worth keeping (\(format(share))% of \(row.serves))"
    print("  " + row.path.padded(44) + format(row.fast).leftPadded(11) + format(row.general).leftPadded(11)
          + format(gain).leftPadded(11) + "  " + verdict)
}
yaia_runtime_free(rt)
yaia_runtime_free(listRuntime)
requests.shutDown()
logicRuntime.shutDown()

func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
