// JSON Logic in the engine, per rule of the JSON Logic conformance suite:
// a rule compiled once and evaluated; compiled and evaluated (Logic.apply);
// and the `logic` request from its text to the response's text, as
// yaia_execute performs it. A batch runs every case of the suite; the table
// shows the median time per rule over BATCHES batches.
//
// Usage: yaia-bench-logic [tests.json [evaluate|apply|request]]
// (default ../shared/conformance/jsonlogic/tests.json). Naming a path runs
// only it, 500 passes untimed: for perf and callgrind.
#if canImport(Glibc)
import Glibc
#endif
import YaiaCore
import YaiaKit
import YaiaRuntime

let batches = 21

func fail(_ message: String) -> Never {
    var text = "yaia-bench-logic: " + message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func nowNs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

/// Calls per batch: the first count of suite passes taking 20 ms, then the median ns per rule.
func medianPerRule(_ rules: Int, _ pass: () -> Void) -> Double {
    var passes = 1
    while true {
        let start = nowNs()
        for _ in 0..<passes { pass() }
        if nowNs() - start >= 20e6 || passes >= 1 << 20 { break }
        passes *= 2
    }
    var samples: [Double] = []
    for _ in 0..<batches {
        let start = nowNs()
        for _ in 0..<passes { pass() }
        samples.append((nowNs() - start) / Double(passes * rules))
    }
    samples.sort()
    return samples[batches / 2]
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "../shared/conformance/jsonlogic/tests.json"
guard let bytes = readFile(path), case .array(let items)? = try? JSONParser.parse(bytes) else {
    fail("cannot read \(path)")
}
let cases: [(rule: JSON, data: JSON, expected: JSON)] = items.compactMap {
    guard case .array(let t) = $0, t.count == 3 else { return nil }
    return (t[0], t[1], t[2])
}
let rules = cases.map(\.rule)
let datas = cases.map(\.data)
guard let compiled = try? rules.map({ (rule) throws(YaiaError) in try LogicRule(rule) }) else { fail("a rule does not compile") }
let runtime = try Runtime(catalog: Catalog(), config: [:])
let requests: [[UInt8]] = cases.map {
    (["op": "logic", "rule": $0.rule, "data": $0.data] as JSON).serializedBytes()
}

// Every path must give the expected values before it is timed.
var wrong = 0
for (i, c) in cases.enumerated() {
    let request = requests[i].withUnsafeBufferPointer { runtime.execute($0) }
    if (try? compiled[i].evaluate(c.data)) != c.expected || (try? Logic.apply(c.rule, to: c.data)) != c.expected
        || request["result"] != c.expected {
        wrong += 1
    }
}
if wrong > 0 {
    fail("\(wrong) cases give unexpected values")
}

var sink = 0
if CommandLine.arguments.count > 2 {
    let only = CommandLine.arguments[2]
    for _ in 0..<500 {
        for i in cases.indices {
            switch only {
            case "evaluate": sink += (try? compiled[i].evaluate(datas[i])) == nil ? 1 : 0
            case "apply": sink += (try? Logic.apply(rules[i], to: datas[i])) == nil ? 1 : 0
            default: sink += requests[i].withUnsafeBufferPointer { runtime.execute($0) }.isNull ? 1 : 0
            }
        }
    }
    exit(sink == 0 ? 0 : 1)
}
let evaluate = medianPerRule(cases.count) {
    for i in cases.indices {
        if case .bool(true)? = try? compiled[i].evaluate(datas[i]) { sink += 1 }
    }
}
let apply = medianPerRule(cases.count) {
    for i in cases.indices {
        if case .bool(true)? = try? Logic.apply(rules[i], to: datas[i]) { sink += 1 }
    }
}
var writer = JSONWriter()
let request = medianPerRule(cases.count) {
    for r in requests {
        let response = r.withUnsafeBufferPointer { runtime.execute($0) }
        writer.reset()
        writer.write(response)
        sink += writer.byteCount
    }
}

print("JSON Logic in the engine, \(cases.count) rules of the conformance suite, median of \(batches) batches (sink \(sink % 10))")
print("case                                            ns/rule")
print("compiled once, evaluated                     \(String(Int(evaluate.rounded())).leftPadded(10))")
print("compiled and evaluated (Logic.apply)         \(String(Int(apply.rounded())).leftPadded(10))")
print("logic request, text to text (Runtime.execute)\(String(Int(request.rounded())).leftPadded(10))")

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
