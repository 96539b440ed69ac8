import YaiaKit

// Effects' outcomes, deadlines and direct calls, each reduced on the scene that asked.

extension RuntimeState {
    /// The host's outcome for a pending effect. If the scene cannot read the
    /// resulting action, the effect stays pending and the error is thrown.
    public mutating func resolve<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E,
                                                        steps: inout [Step]) throws(YaiaError) -> Update {
        guard let record = effects[id] else {
            if effects.issued(id) {
                throw YaiaError(.effectAlreadyResolved, "effect \(id) is no longer pending: it was resolved, cancelled or timed out, or its scene closed")
            }
            throw YaiaError(.noSuchEffect, "no effect with id \(id)")
        }
        guard record.status == .pending, record.scene != 0 else {
            throw YaiaError(.effectNotPending, "effect \(id) is \(record.status.rawValue): only its service completes it")
        }
        guard let scene = scenes[record.scene] else { throw RuntimeState.noSuchScene(record.scene) }
        let action = record.effect.outcomeAction(outcome)
        if let action { try scene.value.check(action) }
        if let (_, ended) = effects.end(id, served: { env.serves($0) }, now: env.now) {
            steps.append(.ended(id))
            for s in ended { steps.append(.effect(s)) }
        }
        // The effect asked for no action on this outcome: nothing to reduce.
        guard let action else {
            var update = Update(scene: scene.id, seq: scene.seq, cause: .request, view: .scene(scene.value))
            if scene.inFamily {
                update.view = familyView(of: scene.id, seq: scene.seq, scene.value)
                update.place = place(of: scene.id)
            } else {
                update.view = view(of: scene.id, seq: scene.seq, scene.value)
            }
            return update
        }
        return try reducing(env: env, steps: &steps) { (state, context) throws(YaiaError) in
            try state.reduce(record.scene, action, cause: .request, in: &context)
        }
    }

    /// What an effect's outcome from a service did.
    public enum Completion {
        /// Nothing: the effect is no longer live, or it was a direct call,
        /// answered by a step. Not journaled.
        case none
        /// The effect ended, and nothing was reduced.
        case ended
        /// The scene that asked received it; its update is queued as an event.
        case reduced(Update)
    }

    /// A service's outcome for a live effect.
    public mutating func complete<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E,
                                                         steps: inout [Step]) -> Completion {
        guard let (record, ended) = effects.end(id, startedOnly: true, served: { env.serves($0) }, now: env.now) else { return .none }
        if record.scene == 0 {
            steps.append(.answer(id, outcome))
            return .none
        }
        steps.append(.ended(id))
        for s in ended { steps.append(.effect(s)) }
        guard scenes.contains(record.scene), let action = record.effect.outcomeAction(outcome) else { return .ended }
        do throws(YaiaError) {
            return .reduced(try reducing(env: env, steps: &steps) { (state, context) throws(YaiaError) in
                try state.reduce(record.scene, action, cause: .effect(id), in: &context)
            })
        } catch {
            steps.append(.warn("scene \(record.scene) refused the outcome of effect \(id): \(error.message)"))
            steps.append(.event(["ok": false, "event": "error", "scene": .int(record.scene), "effect": .int(id),
                                 "error": error.nested(under: "/action").json]))
            return .ended
        }
    }

    /// The time-out outcome of effect `id`.
    public func timeoutOutcome(_ id: Int64) -> Outcome {
        let what = effects[id].map { " (\($0.effect.service).\($0.effect.op))" } ?? ""
        return .failure(["code": .string(ErrorCode.timeout.rawValue), "message": .string("effect \(id)\(what) timed out")])
    }

    /// Whether effect `id`'s deadline has passed at `now`.
    public func isDue(_ id: Int64, at now: Double) -> Bool {
        guard let record = effects[id], record.status != .queued, let deadline = record.deadline else { return false }
        return deadline <= now
    }

    /// Effect `id`'s deadline passed: its call is withdrawn and its catch
    /// action gets `outcome` (`timeoutOutcome`); a direct call's caller gives
    /// up. As `complete`.
    public mutating func timeOut<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E, steps: inout [Step]) -> Completion {
        guard isDue(id, at: env.now), let record = effects[id] else { return .none }
        if record.scene == 0 {
            _ = effects.end(id, served: { env.serves($0) }, now: env.now)
            steps.append(.answer(id, nil))
            return .none
        }
        steps.append(.effect(.cancel(id)))
        return complete(effect: id, outcome: outcome, env: env, steps: &steps)
    }

    /// A call outside any scene, with a deadline `timeout` seconds from now.
    public mutating func direct(_ effect: Effect, timeout: Double, now: Double) -> (Int64, [Step]) {
        let (record, effectSteps) = effects.direct(effect, timeout: timeout, now: now)
        return (record.id, effectSteps.map(Step.effect))
    }
}
