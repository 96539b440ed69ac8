import Testing
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// A send request's update is written once, its tag among its members
/// (`Op.write`), where it had been written, read back into a tree and
/// written again. Two runtimes take the same requests, one answered each
/// way: the texts must be the same at every step, failures included, for
/// scenes, flows, children and view models sent as patches.
@Suite struct SendRequestPathTests {
    static let requests: [String] = [
        #"{"op":"open","scene":"example/login"}"#,
        #"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"},"tag":3}"#,
        #"{"op":"send","scene":1,"action":{"type":"passwordChanged","payload":"pw"}}"#,
        #"{"op":"send","scene":1,"action":{"type":"submit"},"tag":{"n":[1,"é"]}}"#,
        #"{"op":"send","scene":1,"action":{"type":"nope"},"tag":"t"}"#,
        #"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":5},"tag":1.5}"#,
        #"{"op":"send","scene":1,"tag":2}"#,
        #"{"op":"send","scene":99,"action":{"type":"a"},"tag":null}"#,
        #"{"op":"send","scene":1,"flow":1,"action":{"type":"a"}}"#,
        #"{"op":"open","scene":"example/login","view":"patch"}"#,
        #"{"op":"send","scene":2,"action":{"type":"emailChanged","payload":"p@q.r"},"tag":4}"#,
        #"{"op":"send","scene":2,"action":{"type":"emailChanged","payload":"p@q.r"},"tag":5}"#,
        #"{"op":"start","scene":"example/login"}"#,
        #"{"op":"send","flow":1,"action":{"type":"emailChanged","payload":"f@g.h"},"tag":6}"#,
        #"{"op":"open","scene":"example/rows","args":{"items":[{"id":1,"title":"one"},{"id":2,"title":"two"}]}}"#,
        #"{"op":"send","scene":4,"path":["rows",2],"action":{"type":"togglePin"},"tag":7}"#,
        #"{"op":"send","scene":4,"path":["rows",9],"action":{"type":"togglePin"},"tag":8}"#,
        #"{"op":"send","scene":4,"action":{"type":"add","payload":{"id":3,"title":"three"}},"tag":9}"#,
        #"{"op":"send","scene":4,"action":{"type":"remove","payload":1}}"#,
        #"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"x"},"tag":10} trailing"#,
        #" { "tag" : 11 , "action" : { "payload" : "y" , "type" : "emailChanged" } , "scene" : 1 , "op" : "send" } "#,
    ]

    @Test func aSendIsAnsweredAsTheTreePathAnswersIt() {
        let types = Examples.sceneTypes + Examples.childSceneTypes
        let direct = Runtime(catalog: Catalog(SceneCatalog(types)))
        let tree = Runtime(catalog: Catalog(SceneCatalog(types)))
        defer { direct.shutDown(); tree.shutDown() }
        var sends = 0
        for request in SendRequestPathTests.requests {
            let bytes = Array(request.utf8)
            var a = JSONWriter(), b = JSONWriter()
            a.raw("[")  // what the writer held stays, and the answer follows it
            bytes.withUnsafeBufferPointer { direct.execute($0, into: &a) }
            b.raw("[")
            bytes.withUnsafeBufferPointer { b.write(tree.execute($0)) }
            let (x, y) = (a.withBytes { String(decoding: $0, as: UTF8.self) }, b.withBytes { String(decoding: $0, as: UTF8.self) })
            #expect(x == y, "\(request)")
            if request.contains(#""op":"send""#) && x.contains(#""ok":true"#) { sends += 1 }
            if request.contains(#""path":["rows",2]"#) { #expect(x.contains(#""tag":7,"top":4,"viewAt":"/rows/1""#)) }
        }
        // The requests reach what they are meant to: updates of each kind.
        #expect(sends == 9)
    }
}
