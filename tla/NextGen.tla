------------------------------ MODULE NextGen ------------------------------
(***************************************************************************)
(* The next-gen consumer group protocol (KIP-848) at the level of the Go   *)
(* closed world model/nextgen/world, as `rebalance check --protocol        *)
(* nextgen` explores it: one group coordinator (model/nextgen,             *)
(* coordinator*.go), dynamic members (model/nextgen, member*.go)           *)
(* that subscribe to every topic, the network (FIFO per member connection  *)
(* for requests, any order for responses), the timers (fired in deadline   *)
(* order, only when the network and the applications are idle: the         *)
(* checker's Prompt and PromptApps bounds) and the environment actions     *)
(* Join, Crash, Leave and Drop.                                            *)
(*                                                                         *)
(* Time is kept as "ms until due" (-1 = not armed) in each timer, as the   *)
(* checker's canonical encoding keeps instants relative to the clock.      *)
(* Correlation ids are kept as `cur`: whether a message carries the Seq    *)
(* the member awaits (KIP-848 has no such id; the Go world uses the        *)
(* transport's correlation id, member.go "Matching").                      *)
(*                                                                         *)
(* KIP-848 sections: "Group Membership" (joining, leaving, session         *)
(* timeout), "Rebalance Process" (group epoch, target assignment epoch,    *)
(* member epoch and reconciliation), "Rebalance Timeout", "Assignors"      *)
(* (server-side uniform assignor), "ConsumerGroupHeartbeat API".           *)
(*                                                                         *)
(* Left out (no config exercises them; tla/crosscheck/nextgen.go refuses   *)
(* options that would): static membership (instance ids, epoch -2),        *)
(* restarts (new incarnations and member ids), subscription changes,       *)
(* metadata changes (AddPartition), duplicated responses, the fault        *)
(* switches, the range assignor and the heterogeneous uniform assignor,    *)
(* error codes other than FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID (the   *)
(* fatal member state), the group size limit and the Semantics switches    *)
(* (the BeforeKafka ones). Member ids are the name index: every member id  *)
(* is its process's first (Name-1).                                        *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, Bags, TLC

CONSTANTS
    NMembers,       \* members are 1..NMembers (A, B, C, ...; member id Name-1)
    Settled,        \* the first Settled members are in the group at the start
    NTopics,        \* topics 1..NTopics (T, U, ...)
    NPartitions,    \* partitions 0..NPartitions-1 of each topic
    MaxCrashes, MaxLeaves, MaxDrops,   \* the environment's budget
    MaxRounds,      \* world.MaxRoundsOf: the bounded-rounds law
    InitEpoch,      \* group epoch the setup leaves (world.CheckWorld setup)
    InitAssignment, \* InitAssignment[n]: what settled member n holds
    InitPrevious,   \* InitPrevious[n]: its previous epoch at the coordinator
    InitTargetEpoch, \* InitTargetEpoch[n]: the epoch of its last assignment
    HeartbeatMs,    \* group heartbeat interval (checkHeartbeat)
    SessionMs,      \* session timeout (checkSession)
    RebalanceMs,    \* rebalance timeout (checkRebalance)
    RequestMs,      \* member request timeout (checkRequest)
    DefaultIntervalMs \* member's interval before the first response (5000)

Members == 1..NMembers
Resources == (1..NTopics) \X (0..(NPartitions - 1))
\* The resources in Go's order (spec.Resource.Compare: topic, partition).
RList == [i \in 1..(NTopics * NPartitions) |->
            <<((i - 1) \div NPartitions) + 1, (i - 1) % NPartitions>>]
SeqOf(S) == SelectSeq(RList, LAMBDA r : r \in S)
Range(s) == {s[i] : i \in DOMAIN s}
Min(a, b) == IF a < b THEN a ELSE b
Max(a, b) == IF a > b THEN a ELSE b

\* A message whose Seq is no longer the one its member awaits.
Stale(q) == [q EXCEPT !.cur = FALSE]

\* The responses in flight are a bag (World.Encode: a multiset): a crashed
\* member's requests may be answered alike twice.
Send(B, r) == B (+) SetToBag({r})
Take(B, r) == B (-) SetToBag({r})
\* Every response to member n made stale (copies that become equal merge).
StaleTo(B, n) == BagOfAll(LAMBDA r : IF r.to = n THEN Stale(r) ELSE r, B)

VARIABLES
    mem,          \* mem[n]: member process n (its node, nextgen.Member)
    groupEpoch,   \* coordinator: group epoch
    targetEpoch,  \* coordinator: target assignment epoch
    cmem,         \* coordinator: members (id -> record), reconcile.Member + timers
    ctarget,      \* coordinator: target assignment (id -> set)
    reqs,         \* reqs[n]: requests in flight from n, in send order
    resps,        \* responses in flight: a bag (any order, copies counted)
    used,         \* environment budget used (world.Used)
    rounds        \* member epoch bumps since the last environment action

vars == <<mem, groupEpoch, targetEpoch, cmem, ctarget, reqs, resps, used, rounds>>

(***************************************************************************)
(* Member (model/nextgen/member*.go).                                      *)
(***************************************************************************)
Heartbeating == {"joining", "reconciling", "acknowledging", "stable", "prepare-leaving"}
Reconciles == {"joining", "reconciling", "acknowledging", "stable"}
Live(m) == m.state \notin {"absent", "down"}

\* A process that has not joined ("absent") or is down: no node.
NoNode(st) == [state |-> st, epoch |-> 0, interval |-> DefaultIntervalMs,
               owned |-> {}, ownedEpoch |-> 0, revoking |-> {},
               target |-> {}, targetEpoch |-> 0, hasTarget |-> FALSE,
               full |-> FALSE, reported |-> FALSE, awaiting |-> FALSE,
               hb |-> -1, req |-> -1]

\* A member step's result: the node and the requests it sent (0 or 1).
Out(m, sent) == [m |-> m, sent |-> sent]
Noop(m) == Out(m, <<>>)

\* Member.setOwned (member.go): a change must be reported.
SetOwned(m, s) == IF s = m.owned THEN m ELSE [m EXCEPT !.owned = s, !.reported = FALSE]

\* Member.sendHeartbeat and buildRequest (member_heartbeat.go; KIP-848
\* "ConsumerGroupHeartbeat API"): full while joining or after an error,
\* owned partitions when full or changed; a fresh Seq is awaited, the
\* request timer armed, an acknowledging member becomes stable.
SendHB(m) ==
    LET full == m.full \/ m.state = "joining"
        os == full \/ ~m.reported
        r == [cur |-> TRUE, epoch |-> m.epoch, full |-> full,
              ownedSent |-> os, owned |-> IF os THEN m.owned ELSE {}]
    IN Out([m EXCEPT !.reported = TRUE, !.full = FALSE, !.awaiting = TRUE,
                     !.hb = -1, !.req = RequestMs,
                     !.state = IF @ = "acknowledging" THEN "stable" ELSE @],
           <<r>>)

\* Member.schedule (member_heartbeat.go): at once when acknowledging,
\* else on the heartbeat timer.
Schedule(m) ==
    IF m.awaiting \/ m.state \notin Heartbeating THEN Noop(m)
    ELSE IF m.state = "acknowledging" THEN SendHB(m)
    ELSE IF m.hb < 0 THEN Noop([m EXCEPT !.hb = m.interval])
    ELSE Noop(m)

\* Member.reconcile (member_reconcile.go; KIP-848 "Member Epoch -
\* Reconcile the group"): revoke first (the revoked partitions stay owned
\* until the application is done), assign once nothing is being revoked,
\* then acknowledge.
Reconcile(m) ==
    IF ~m.hasTarget \/ m.state \notin Reconciles THEN m
    ELSE LET rv == (m.owned \ m.target) \ m.revoking
             m1 == IF rv # {} THEN [m EXCEPT !.state = "reconciling", !.revoking = @ \cup rv]
                   ELSE m
         IN IF m1.revoking # {} THEN [m1 EXCEPT !.state = "reconciling"]
            ELSE LET add == (m1.target \ m1.owned) \ m1.revoking
                     m2 == IF add # {}
                           THEN SetOwned([m1 EXCEPT !.state = "reconciling"], m1.owned \cup add)
                           ELSE m1
                     m3 == [m2 EXCEPT !.ownedEpoch = Max(@, m2.targetEpoch)]
                 IN IF ~m3.reported THEN [m3 EXCEPT !.state = "acknowledging"]
                    ELSE IF m3.state \in {"joining", "reconciling"}
                         THEN [m3 EXCEPT !.state = "stable"]
                         ELSE m3

\* Member.loseAll (member_heartbeat.go): everything worked on is Lost.
LoseAll(m) == [SetOwned(m, {}) EXCEPT !.revoking = {}, !.ownedEpoch = 0]

\* Member.fence (member_heartbeat.go): lose all, rejoin at epoch 0 (after
\* the interval if the fenced heartbeat was itself a join).
Fence(m) ==
    LET m1 == [LoseAll(m) EXCEPT !.target = {}, !.targetEpoch = 0, !.hasTarget = FALSE,
                                 !.state = "joining", !.epoch = 0, !.full = TRUE]
    IN IF m.epoch = 0 THEN Noop([m1 EXCEPT !.hb = m1.interval]) ELSE SendHB(m1)

\* Member.sendLeave (member_reconcile.go; KIP-848 "Leaving the group"):
\* drop the assignment, epoch -1, the leave heartbeat at once.
SendLeave(m) == SendHB([SetOwned(m, {}) EXCEPT !.ownedEpoch = 0, !.state = "leaving", !.epoch = -1])

\* Member.onSuccess (member_heartbeat.go): adopt the epoch and interval,
\* reconcile a new assignment.
OnSuccess(m, r) ==
    IF r.epoch <= 0 THEN Schedule(m)
    ELSE LET m1 == [m EXCEPT !.epoch = r.epoch, !.interval = HeartbeatMs]
             m2 == CASE m1.state = "prepare-leaving" -> m1
                     [] r.asg -> Reconcile([m1 EXCEPT !.target = r.assignment,
                                               !.targetEpoch = r.epoch, !.hasTarget = TRUE])
                     [] m1.state = "stable" -> [m1 EXCEPT !.ownedEpoch = r.epoch]
                     [] OTHER -> m1
         IN Schedule(m2)

\* Member.onError (member_heartbeat.go): FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID fence the member (a
\* member preparing to leave is done).
OnError(m, r) ==
    LET m1 == [m EXCEPT !.full = TRUE]
    IN IF m1.state = "prepare-leaving"
       THEN Noop([LoseAll(m1) EXCEPT !.hb = -1, !.req = -1, !.state = "left"])
       ELSE Fence(m1)

\* Member.receive (member_heartbeat.go): only the awaited response counts;
\* the answer to the leave heartbeat makes the member Left.
MemberReceive(m, r) ==
    IF ~r.cur \/ ~m.awaiting \/ m.state = "left" THEN Noop(m)
    ELSE LET m1 == [m EXCEPT !.awaiting = FALSE, !.req = -1]
         IN CASE m1.state = "leaving" -> Noop([m1 EXCEPT !.hb = -1, !.state = "left"])
              [] r.err # "NONE" -> OnError(m1, r)
              [] OTHER -> OnSuccess(m1, r)

\* Member.revocationDone (member_reconcile.go): the application finished
\* revoking; reconciliation goes on, or the leave heartbeat goes out.
MemberRevocationDone(m) ==
    LET m1 == SetOwned([m EXCEPT !.revoking = {}], m.owned \ m.revoking)
    IN CASE m1.state = "prepare-leaving" -> SendLeave(m1)
         [] m1.state \in Reconciles -> Schedule(Reconcile(m1))
         [] OTHER -> Noop(m1)

\* Member.leave (member_reconcile.go, Kafka's leaveGroup): revoke
\* everything, then send the leave heartbeat.
MemberLeave(m) ==
    IF m.state \notin Reconciles THEN Noop(m)
    ELSE LET m1 == [m EXCEPT !.state = "prepare-leaving", !.target = {},
                             !.targetEpoch = 0, !.hasTarget = FALSE]
             m2 == [m1 EXCEPT !.revoking = @ \cup (m1.owned \ m1.revoking)]
         IN IF m2.revoking = {} THEN SendLeave(m2) ELSE Schedule(m2)

\* Member.join on Start (member_heartbeat.go; KIP-848 "Joining the
\* group"): epoch 0, a full heartbeat at once.
MemberJoin == SendHB([NoNode("joining") EXCEPT !.full = TRUE])

\* Member.timerFired (member_heartbeat.go): the heartbeat timer sends the
\* next heartbeat; the request timer resends a lost one (full, except the
\* leave heartbeat).
MemberHeartbeatTimer(m) ==
    LET m1 == [m EXCEPT !.hb = -1]
    IN IF ~m1.awaiting /\ m1.state \in Heartbeating THEN SendHB(m1) ELSE Noop(m1)

MemberRequestTimer(m) ==
    LET m1 == [m EXCEPT !.req = -1]
    IN IF m1.awaiting /\ m1.state \in Heartbeating \cup {"leaving"}
       THEN SendHB([m1 EXCEPT !.full = m1.state # "leaving"])
       ELSE Noop(m1)

(***************************************************************************)
(* Target assignor: the uniform assignor, homogeneous subscriptions        *)
(* (model/assign/server_uniform.go uniformHomogeneous, as                  *)
(* model/nextgen/target.Build calls it): members in member-id order keep   *)
(* their previous target up to their quota, then fill from the free        *)
(* partitions in order.                                                    *)
(***************************************************************************)
SortedIds(ids) == SelectSeq([i \in Members |-> i], LAMBDA i : i \in ids)

RECURSIVE KeepPrev(_, _, _, _, _, _)
KeepPrev(ids, j, prev, minQ, acc, extras) ==
    IF j > Len(ids) THEN [acc |-> acc, extras |-> extras]
    ELSE LET id == ids[j]
             own == SeqOf(IF id \in DOMAIN prev THEN prev[id] ELSE {})
             more == Len(own) > minQ /\ extras > 0
             q == IF more THEN minQ + 1 ELSE Min(Len(own), minQ)
         IN KeepPrev(ids, j + 1, prev, minQ, acc @@ (id :> Range(SubSeq(own, 1, q))),
                     IF more THEN extras - 1 ELSE extras)

RECURSIVE FillFree(_, _, _, _, _)
FillFree(ids, j, minQ, acc, extras) ==
    IF j > Len(ids) THEN acc
    ELSE LET id == ids[j]
             s == Cardinality(acc[id])
             more == s <= minQ /\ extras > 0
             need == (IF more THEN minQ + 1 ELSE minQ) - s
             free == SeqOf(Resources \ UNION {acc[i] : i \in DOMAIN acc})
             take == IF need > 0 THEN Range(SubSeq(free, 1, need)) ELSE {}
         IN FillFree(ids, j + 1, minQ, [acc EXCEPT ![id] = @ \cup take],
                     IF more THEN extras - 1 ELSE extras)

UniformAssign(idset, prev) ==
    LET ids == SortedIds(idset)
        total == NTopics * NPartitions
        minQ == total \div Len(ids)
        kept == KeepPrev(ids, 1, prev, minQ, <<>>, total % Len(ids))
    IN FillFree(ids, 1, minQ, kept.acc, kept.extras)

(***************************************************************************)
(* Coordinator (model/nextgen coordinator*.go, reconcile, validate).       *)
(***************************************************************************)
\* Coordinator.partitionOwned (coordinator_heartbeat.go): a partition some
\* member of the group holds, assigned or pending revocation (the owners
\* map, no fault).
Held(p) == \E id \in DOMAIN cmem : p \in cmem[id].assigned \cup cmem[id].pending

NewCM == [epoch |-> 0, prev |-> -1, state |-> "STABLE", assigned |-> {}, pending |-> {},
          session |-> -1, rebalance |-> -1]

\* reconcile.computeNext (model/nextgen/reconcile): keep what stays,
\* revoke what goes (UNREVOKED_PARTITIONS, staying at the given epoch),
\* assign what is free, wait for what is not (UNRELEASED_PARTITIONS).
ComputeNext(cm, tE, tgt, q, epoch) ==
    LET ownsAny(S) == ~q.ownedSent \/ q.owned \cap S # {}
        assigned == cm.assigned \cap tgt
        revoking == cm.assigned \ assigned
        unreleased == {p \in tgt \ assigned : Held(p) /\ p \notin cm.pending}
        pend == (tgt \ assigned) \ unreleased
        base == [cm EXCEPT !.prev = cm.epoch, !.epoch = tE, !.assigned = assigned, !.pending = {}]
    IN CASE revoking # {} /\ ownsAny(revoking) ->
              [base EXCEPT !.state = "UNREVOKED_PARTITIONS", !.epoch = epoch, !.pending = revoking]
         [] pend # {} -> [base EXCEPT !.assigned = assigned \cup pend,
                                      !.state = IF unreleased # {} THEN "UNRELEASED_PARTITIONS" ELSE "STABLE"]
         [] unreleased # {} -> [base EXCEPT !.state = "UNRELEASED_PARTITIONS"]
         [] OTHER -> [base EXCEPT !.state = "STABLE"]

\* reconcile.Next (KIP-848 "Member Epoch - Reconcile the group"): the
\* member's next epoch and assignment; a revoking member moves on only once
\* its heartbeat shows the revoked partitions gone.
ReconcileNext(cm, tE, tgt, q) ==
    CASE cm.state = "STABLE" ->
            IF cm.epoch = tE THEN cm ELSE ComputeNext(cm, tE, tgt, q, cm.epoch)
      [] cm.state = "UNREVOKED_PARTITIONS" ->
            IF ~q.ownedSent \/ q.owned \cap cm.pending # {} THEN cm
            ELSE ComputeNext(cm, tE, tgt, q, cm.epoch + 1)
      [] cm.state = "UNRELEASED_PARTITIONS" -> ComputeNext(cm, tE, tgt, q, cm.epoch)

Reject(n, cur, err) == [to |-> n, cur |-> cur, err |-> err, epoch |-> 0, asg |-> FALSE, assignment |-> {}]

\* validate.MemberEpoch (model/nextgen/validate/epoch.go): the epoch check
\* (KIP-848 fencing by member epoch) with the previous-epoch tolerance: a
\* member one epoch behind whose owned partitions are a subset of its
\* assignment is not fenced (its acknowledgement was lost).
EpochOK(cm, q) ==
    \/ q.epoch = 0
    \/ q.epoch = cm.epoch
    \/ q.epoch < cm.epoch /\ q.epoch = cm.prev /\ q.ownedSent /\ q.owned \subseteq cm.assigned

\* Coordinator.fence (coordinator_heartbeat.go): the member leaves the
\* group with its holdings and timers; the group epoch moves (KIP-848
\* "Group Epoch - Trigger a rebalance").
CoordFence(id) ==
    /\ cmem' = [i \in DOMAIN cmem \ {id} |-> cmem[i]]
    /\ ctarget' = [i \in DOMAIN ctarget \ {id} |-> ctarget[i]]
    /\ groupEpoch' = groupEpoch + 1
    /\ UNCHANGED targetEpoch

\* Coordinator.handleLeave (validate.Leave): a dynamic member's leave
\* (epoch -1) fences it and is answered with epoch -1.
CoordLeave(n, q) ==
    IF n \in DOMAIN cmem
    THEN /\ CoordFence(n)
         /\ resps' = Send(resps, [to |-> n, cur |-> q.cur, err |-> "NONE", epoch |-> -1,
                                   asg |-> FALSE, assignment |-> {}])
    ELSE /\ UNCHANGED <<cmem, ctarget, groupEpoch, targetEpoch>>
         /\ resps' = Send(resps, Reject(n, q.cur, "UNKNOWN_MEMBER_ID"))

\* Coordinator.regularHeartbeat (coordinator_heartbeat.go): validate
\* (validate.Join), bump the group epoch for a new member (its
\* subscription is new), compute a new target when the group epoch is
\* ahead of the target epoch (target.Build; KIP-848 "Assignment Epoch"),
\* reconcile the member (reconcile.Next), arm its session timer (and its
\* rebalance timer while it revokes: KIP-848 "Rebalance Timeout"), and
\* answer with the epoch and, when the request was full or the assignment
\* changed, the assignment.
CoordRegular(n, q) ==
    IF n \notin DOMAIN cmem /\ q.epoch # 0
    THEN /\ UNCHANGED <<cmem, ctarget, groupEpoch, targetEpoch>>
         /\ resps' = Send(resps, Reject(n, q.cur, "UNKNOWN_MEMBER_ID"))
    ELSE IF n \in DOMAIN cmem /\ ~EpochOK(cmem[n], q)
    THEN /\ UNCHANGED <<cmem, ctarget, groupEpoch, targetEpoch>>
         /\ resps' = Send(resps, Reject(n, q.cur, "FENCED_MEMBER_EPOCH"))
    ELSE LET known == n \in DOMAIN cmem
             base == IF known THEN cmem[n] ELSE NewCM
             gE == IF known THEN groupEpoch ELSE groupEpoch + 1
             ids == DOMAIN cmem \cup {n}
             newTarget == gE > targetEpoch
             tgt == IF newTarget THEN UniformAssign(ids, ctarget) ELSE ctarget
             tE == IF newTarget THEN gE ELSE targetEpoch
             nx == ReconcileNext(base, tE, tgt[n], q)
             changed == <<nx.epoch, nx.prev, nx.state, nx.assigned, nx.pending>>
                        # <<base.epoch, base.prev, base.state, base.assigned, base.pending>>
             reb == IF changed THEN (IF nx.state = "UNREVOKED_PARTITIONS" THEN RebalanceMs ELSE -1)
                    ELSE base.rebalance
             asg == q.epoch = 0 \/ q.full \/ base.assigned # nx.assigned
         IN /\ cmem' = [i \in ids |-> IF i = n THEN [nx EXCEPT !.session = SessionMs, !.rebalance = reb]
                                      ELSE cmem[i]]
            /\ ctarget' = tgt
            /\ groupEpoch' = gE
            /\ targetEpoch' = tE
            /\ resps' = Send(resps, [to |-> n, cur |-> q.cur, err |-> "NONE", epoch |-> nx.epoch,
                                     asg |-> asg, assignment |-> IF asg THEN nx.assigned ELSE {}])

CoordHeartbeat(n, q) == IF q.epoch < 0 THEN CoordLeave(n, q) ELSE CoordRegular(n, q)

(***************************************************************************)
(* The world (model/nextgen/world): applying a member step, the laws'      *)
(* view, the rounds counter.                                               *)
(***************************************************************************)
\* A member's view generation (0 = NoGeneration).
Gen(m) == IF Live(m) THEN m.ownedEpoch ELSE 0
Bumps == Cardinality({n \in Members : Gen(mem'[n]) > Gen(mem[n])})
OwnStep == rounds' = Min(rounds + Bumps, MaxRounds + 1)
EnvStep == rounds' = Min(Bumps, MaxRounds + 1)


\* Performs member n's step result o: the node, and the request it sent,
\* which makes every older message of n stale (a fresh Seq).
ApplyMember(n, o) ==
    /\ mem' = [mem EXCEPT ![n] = o.m]
    /\ IF o.sent # <<>> \/ ~o.m.awaiting
       THEN /\ reqs' = [reqs EXCEPT ![n] = [i \in DOMAIN @ |-> Stale(@[i])] \o o.sent]
            /\ resps' = StaleTo(resps, n)
       ELSE UNCHANGED <<reqs, resps>>

Current(n) == Live(mem[n]) /\ n \in DOMAIN cmem /\ cmem[n].epoch >= 0
Owns(n) == mem[n].owned \cup mem[n].revoking

(***************************************************************************)
(* Actions.                                                                *)
(***************************************************************************)
\* World.Deliver of a request: a member's oldest request reaches the
\* coordinator (Coordinator.Step -> handleHeartbeat).
DeliverRequest(n) ==
    /\ reqs[n] # <<>>
    /\ reqs' = [reqs EXCEPT ![n] = Tail(@)]
    /\ CoordHeartbeat(n, Head(reqs[n]))
    /\ UNCHANGED <<mem, used>>
    /\ OwnStep

\* World.Deliver of response r: to its member (Member.Step -> receive),
\* lost if the member is down.
DeliverResponseOf(r) ==
    /\ IF Live(mem[r.to])
       THEN LET o == MemberReceive(mem[r.to], r)
            IN /\ mem' = [mem EXCEPT ![r.to] = o.m]
               /\ IF o.sent # <<>> \/ ~o.m.awaiting
                  THEN /\ reqs' = [reqs EXCEPT ![r.to] = [i \in DOMAIN @ |-> Stale(@[i])] \o o.sent]
                       /\ resps' = StaleTo(Take(resps, r), r.to)
                  ELSE /\ resps' = Take(resps, r)
                       /\ UNCHANGED reqs
       ELSE /\ resps' = Take(resps, r)
            /\ UNCHANGED <<mem, reqs>>
    /\ UNCHANGED <<groupEpoch, targetEpoch, cmem, ctarget, used>>
    /\ OwnStep

\* The armed timers as sort keys: deadline, then node name (members A, B,
\* ... before "coordinator"), then the timer's name (sim.Timers order).
MemberTimers == {<<mem[n].hb, 0, n, 1>> : n \in {i \in Members : mem[i].hb >= 0}}
                \cup {<<mem[n].req, 0, n, 2>> : n \in {i \in Members : mem[i].req >= 0}}
CoordTimers == {<<cmem[i].rebalance, 1, 1, i>> : i \in {j \in DOMAIN cmem : cmem[j].rebalance >= 0}}
               \cup {<<cmem[i].session, 1, 2, i>> : i \in {j \in DOMAIN cmem : cmem[j].session >= 0}}
Timers == MemberTimers \cup CoordTimers
LexLeq(a, b) == \/ a[1] < b[1]
                \/ a[1] = b[1] /\ a[2] < b[2]
                \/ a[1] = b[1] /\ a[2] = b[2] /\ a[3] < b[3]
                \/ a[1] = b[1] /\ a[2] = b[2] /\ a[3] = b[3] /\ a[4] <= b[4]
NextTimer == CHOOSE t \in Timers : \A u \in Timers : LexLeq(t, u)
Shift(x, d) == IF x >= 0 THEN x - d ELSE x

NetworkIdle == resps = EmptyBag /\ \A n \in Members : reqs[n] = <<>>
AppsIdle == \A n \in Members : Live(mem[n]) => mem[n].revoking = {}

\* Deliver any response in flight (the operator holds the existential so
\* that TLC labels the step DeliverResponse: its domain is a variable).
DeliverResponse == \E r \in DOMAIN resps : DeliverResponseOf(r)

\* Coordinator.handleTimer (coordinator.go): the session timeout (KIP-848
\* "Session timeout") or the rebalance timeout (KIP-848 "Rebalance
\* Timeout"; armed at the member's epoch, which it still has: the timer is
\* re-armed whenever the epoch moves) fences member id; c1 is the
\* coordinator's members with their timers moved to the new clock.
CoordTimerFired(c1, id) ==
    /\ cmem' = [i \in DOMAIN c1 \ {id} |-> c1[i]]
    /\ ctarget' = [i \in DOMAIN ctarget \ {id} |-> ctarget[i]]
    /\ groupEpoch' = groupEpoch + 1
    /\ UNCHANGED targetEpoch

\* World.FireTimer(0): fire the earliest timer; the clock moves to its
\* deadline (every timer's "ms until due" drops by as much). Enabled only
\* when no message is in flight and no revocation is pending
\* (Bounds.Prompt, Bounds.PromptApps: the network and the applications are
\* faster than every timer; a late message is a Drop).
Fire ==
    /\ Timers # {}
    /\ NetworkIdle
    /\ AppsIdle
    /\ LET t == NextTimer
           d == t[1]
           m1 == [n \in Members |-> [mem[n] EXCEPT !.hb = Shift(@, d), !.req = Shift(@, d)]]
           c1 == [i \in DOMAIN cmem |-> [cmem[i] EXCEPT !.session = Shift(@, d),
                                                        !.rebalance = Shift(@, d)]]
       IN IF t[2] = 0
          THEN LET n == t[3]
                   o == IF t[4] = 1 THEN MemberHeartbeatTimer(m1[n]) ELSE MemberRequestTimer(m1[n])
               IN /\ mem' = [m1 EXCEPT ![n] = o.m]
                  /\ reqs' = [reqs EXCEPT ![n] = o.sent]
                  /\ cmem' = c1
                  /\ UNCHANGED <<groupEpoch, targetEpoch, ctarget, resps>>
          ELSE /\ mem' = m1
               /\ CoordTimerFired(c1, t[4])
               /\ UNCHANGED <<reqs, resps>>
    /\ UNCHANGED used
    /\ OwnStep

\* The application finishes its revocation (World.CompleteRevocation ->
\* Member.revocationDone): one of the system's own steps.
Revoked(n) ==
    /\ Live(mem[n])
    /\ mem[n].revoking # {}
    /\ ApplyMember(n, MemberRevocationDone(mem[n]))
    /\ UNCHANGED <<groupEpoch, targetEpoch, cmem, ctarget, used>>
    /\ OwnStep

\* Environment: a message in flight is lost (World.Drop), any of them.
DropRequestAt(n, i) ==
    /\ used.drops < MaxDrops
    /\ i \in DOMAIN reqs[n]
    /\ reqs' = [reqs EXCEPT ![n] = SubSeq(@, 1, i - 1) \o SubSeq(@, i + 1, Len(@))]
    /\ used' = [used EXCEPT !.drops = @ + 1]
    /\ UNCHANGED <<mem, groupEpoch, targetEpoch, cmem, ctarget, resps>>
    /\ EnvStep

DropResponseOf(r) ==
    /\ used.drops < MaxDrops
    /\ resps' = Take(resps, r)
    /\ used' = [used EXCEPT !.drops = @ + 1]
    /\ UNCHANGED <<mem, groupEpoch, targetEpoch, cmem, ctarget, reqs>>
    /\ EnvStep

DropRequest == \E n \in Members : \E i \in 1..Len(reqs[n]) : DropRequestAt(n, i)
DropResponse == \E r \in DOMAIN resps : DropResponseOf(r)

\* Environment: a new member starts (World.AddMember -> Member.join).
Join(n) ==
    /\ mem[n].state = "absent"
    /\ ApplyMember(n, MemberJoin)
    /\ UNCHANGED <<groupEpoch, targetEpoch, cmem, ctarget, used>>
    /\ EnvStep

CanAct(n) == Live(mem[n]) /\ mem[n].state # "left"

\* Environment: a process crashes (World.Crash): its node, timers and
\* revocation are gone; its messages in flight stay (responses to it are
\* lost on delivery); the coordinator notices through the session timeout.
Crash(n) ==
    /\ used.crashes < MaxCrashes
    /\ CanAct(n)
    /\ mem' = [mem EXCEPT ![n] = NoNode("down")]
    /\ reqs' = [reqs EXCEPT ![n] = [i \in DOMAIN @ |-> Stale(@[i])]]
    /\ resps' = StaleTo(resps, n)
    /\ used' = [used EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<groupEpoch, targetEpoch, cmem, ctarget>>
    /\ EnvStep

\* Environment: the application tells its member to leave (World.Leave ->
\* Member.leave); a member already leaving ignores it, but the budget is
\* spent, as in the Go world.
Leave(n) ==
    /\ used.leaves < MaxLeaves
    /\ CanAct(n)
    /\ ApplyMember(n, MemberLeave(mem[n]))
    /\ used' = [used EXCEPT !.leaves = @ + 1]
    /\ UNCHANGED <<groupEpoch, targetEpoch, cmem, ctarget>>
    /\ EnvStep

(***************************************************************************)
(* Initial state: what world.CheckWorld's setup leaves: the settled        *)
(* members stable at InitEpoch, heartbeat due in HeartbeatMs, session in   *)
(* SessionMs; the joiners absent. A settled member's target epoch is       *)
(* InitTargetEpoch[n], the epoch of the last response that carried its     *)
(* assignment. A response carries one to a join, to a full heartbeat or    *)
(* when the member's assignment changes (CoordRegular's asg); one without  *)
(* moves only the member's epoch and, stable, its owned epoch (OnSuccess). *)
(* So a member whose assignment the setup's last epoch left as it was      *)
(* keeps an older target epoch: with four members over two partitions, C   *)
(* holds nothing at epoch 3 and still nothing at epoch 4, and starts with  *)
(* epoch 4, owned epoch 4, target epoch 3.                                 *)
(***************************************************************************)
SettledMember(n) ==
    [NoNode("stable") EXCEPT !.epoch = InitEpoch, !.interval = HeartbeatMs,
        !.owned = InitAssignment[n], !.ownedEpoch = InitEpoch,
        !.target = InitAssignment[n], !.targetEpoch = InitTargetEpoch[n],
        !.hasTarget = TRUE, !.reported = TRUE, !.hb = HeartbeatMs]

Init ==
    /\ mem = [n \in Members |-> IF n <= Settled THEN SettledMember(n) ELSE NoNode("absent")]
    /\ groupEpoch = InitEpoch
    /\ targetEpoch = InitEpoch
    /\ cmem = [n \in 1..Settled |-> [epoch |-> InitEpoch, prev |-> InitPrevious[n],
                 state |-> "STABLE", assigned |-> InitAssignment[n], pending |-> {},
                 session |-> SessionMs, rebalance |-> -1]]
    /\ ctarget = [n \in 1..Settled |-> InitAssignment[n]]
    /\ reqs = [n \in Members |-> <<>>]
    /\ resps = EmptyBag
    /\ used = [crashes |-> 0, leaves |-> 0, drops |-> 0]
    /\ rounds = 0

Next ==
    \/ \E n \in Members : DeliverRequest(n)
    \/ DeliverResponse
    \/ Fire
    \/ \E n \in Members : Revoked(n)
    \/ DropRequest
    \/ DropResponse
    \/ \E n \in Members : Join(n)
    \/ \E n \in Members : Crash(n)
    \/ \E n \in Members : Leave(n)

\* Weak fairness of the protocol's own steps only (checker.Own: deliver,
\* fire, revoked); the environment (Join, Crash, Leave, Drop) is bounded
\* and may stop at any time. The checker's fairness is per FairKey (each
\* message, each timer); here it is per member for requests and
\* revocations and over all responses, which is weaker (Fire is one
\* action: only the earliest timer is ever enabled), so the properties
\* holding under it is the stronger result.
Fairness ==
    /\ \A n \in Members : WF_vars(DeliverRequest(n))
    /\ WF_vars(DeliverResponse)
    /\ WF_vars(Fire)
    /\ \A n \in Members : WF_vars(Revoked(n))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Laws (spec/laws.go), over the world's view (World.View): a member is    *)
(* current when it is up and the coordinator counts it; every other        *)
(* process is fenced and does not count (spec.CheckExclusiveOwnership).    *)
(***************************************************************************)
ExclusiveOwnership ==
    \A n1, n2 \in Members : n1 # n2 /\ Current(n1) /\ Current(n2) => Owns(n1) \cap Owns(n2) = {}
\* Every member subscribes to every topic: SubscribedOnly is Owns within
\* the subscription, ExistingOnly within the existing partitions.
SubscribedOnly == \A n \in Members : Current(n) => Owns(n) \subseteq Resources
ExistingOnly == \A n \in Members : Current(n) => Owns(n) \subseteq Resources
BoundedRounds == rounds <= MaxRounds

\* spec.CheckStep's MonotonicGeneration, as a step property: a member
\* current before and after a step never moves to a lower generation; a
\* reset to none (0 here) is allowed only owning nothing afterwards.
MonotonicGeneration ==
    [][\A n \in Members :
         Current(n) /\ Current(n)' =>
            IF Gen(mem'[n]) = 0 THEN Owns(n)' = {} ELSE Gen(mem'[n]) >= Gen(mem[n])]_vars

\* The coordinator's own invariants (Coordinator.CheckInvariants) that the
\* spec can state: no partition held twice, epochs ordered.
CoordinatorInvariant ==
    /\ targetEpoch <= groupEpoch
    /\ \A i \in DOMAIN cmem : cmem[i].epoch <= targetEpoch /\ cmem[i].prev <= cmem[i].epoch
                              /\ cmem[i].session >= 0
                              /\ (cmem[i].rebalance >= 0 <=> cmem[i].state = "UNREVOKED_PARTITIONS")
    /\ \A i, j \in DOMAIN cmem : i # j =>
            (cmem[i].assigned \cup cmem[i].pending) \cap (cmem[j].assigned \cup cmem[j].pending) = {}

\* The liveness target (World.CheckConverged): every partition owned by
\* exactly one current member, loads within one of each other.
Converged ==
    LET cur == {n \in Members : Current(n)}
    IN /\ cur # {} => \A p \in Resources : Cardinality({n \in cur : p \in Owns(n)}) = 1
       /\ \A hi, lo \in cur : Cardinality(Owns(hi)) <= Cardinality(Owns(lo)) + 1

\* checker/liveness.go: the environment acts finitely often (its budget),
\* so every fair behaviour ends converged and stays so (EventuallyConverged)
\* and stops moving resources (Stability).
EventuallyConverged == <>[]Converged
Ownership == [n \in Members |-> IF Current(n) THEN Owns(n) ELSE {}]
Stability == <>[][Ownership' = Ownership]_vars
=============================================================================
