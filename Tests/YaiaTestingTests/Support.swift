import Testing
import YaiaTesting

/// Runs `body` expecting it to record at least one issue, every one of which
/// carries all of `needles` in its comment: proof that a wrong expectation
/// fails, and fails with a useful message.
func expectFailure(_ needles: String..., sourceLocation: SourceLocation = #_sourceLocation, _ body: () -> Void) {
    withKnownIssue(sourceLocation: sourceLocation) {
        body()
    } matching: { issue in
        let text = issue.comments.map(\.rawValue).joined(separator: "\n")
        return needles.allSatisfy { text.contains($0) }
    }
}
