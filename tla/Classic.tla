------------------------------ MODULE Classic ------------------------------
(***************************************************************************)
(* The classic rebalance protocol family: Kafka's classic group membership *)
(* protocol (JoinGroup barrier, SyncGroup, heartbeats, session and         *)
(* rebalance timeouts, LeaveGroup, KIP-429 rejoin after revocation) with   *)
(* an embedded rebalance policy chosen by the constant Policy.             *)
(*                                                                         *)
(* It is the closed world of model/classic/world as `rebalance check`      *)
(* explores it: one coordinator, member processes 1..NMembers (A, B, ...), *)
(* a FIFO network per connection that is faster than every timer          *)
(* (world.Bounds.FIFO and Prompt), the timers, and the environment's       *)
(* bounded actions (Join, Crash, Leave, Drop), which act only while the    *)
(* network is quiet, except Drop (CheckConfig.EnvWhenQuiet).               *)
(*                                                                         *)
(* The world is handled functionally: the spec's variables are the fields *)
(* of a world record W, and every Go handler is an operator from a world   *)
(* to a world, so Go's sequential "mutate, send, arm" reads as a chain of  *)
(* LET definitions. The projection tla/crosscheck/classic.go maps every    *)
(* Go state to these variables (its header documents the representation). *)
(*                                                                         *)
(* Policies: eager (range assignor), cooperative (KIP-429, cooperative     *)
(* sticky), deferred (KIP-415, Connect's IncrementalCooperativeAssignor)   *)
(* and incremental (Design III: deferred with bounded moves per round).   *)
(*                                                                         *)
(* Abstractions (each exact for the configurations in tla/configs):        *)
(*  - time is kept as the REMAINING time of each timer, in units of 1000  *)
(*    ms (world/check.go's timing constants are all multiples of 1000);    *)
(*  - correlation ids (Seq) are replaced by a flag cur: "this is the       *)
(*    request or response the member waits for";                          *)
(*  - a member's subscription is every topic and never changes (no         *)
(*    Resubscribe), so topics are left out of the metadata;               *)
(*  - the policies are written for those homogeneous subscriptions (the    *)
(*    sticky and Connect assignors' general paths are left out), deferred  *)
(*    and incremental with Kafka's leader failover (reassign-immediately), *)
(*    incremental with moves=1, and every round a leader computes passes   *)
(*    spec.CheckRound (the AssignorFailed path is left out);               *)
(*  - no static membership (KIP-345 instance ids, KIP-814), no restarts,   *)
(*    no duplicated messages, no fault switches, no leader bounces, no     *)
(*    metadata changes: the configurations use none.                       *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Policy,       \* "eager", "cooperative", "deferred" or "incremental"
    NMembers,     \* CheckOptions.Members
    NJoins,       \* CheckOptions.Joins
    NTopics,      \* CheckOptions.Topics
    NPartitions,  \* CheckOptions.Partitions
    MaxCrashes, MaxLeaves, MaxDrops,
    MaxRounds     \* world.MaxRoundsOf(Policy)

ASSUME Policy \in {"eager", "cooperative", "deferred", "incremental"}
ASSUME NMembers \in 1..9 /\ NJoins \in 0..NMembers /\ NTopics \in 1..6 /\ NPartitions \in 1..99

VARIABLES
    used,    \* world.Used: [crashes, leaves, drops]
    rounds,  \* world.State.Rounds: assignment rounds since the last environment action
    coord,   \* the classic.Coordinator
    procs,   \* procs[n]: the classic.Member of process n, or its absence
    reqs,    \* reqs[n]: the requests in flight on the connection n -> coordinator
    resps,   \* resps[n]: the responses in flight on the connection coordinator -> n
    timers   \* [<<node, kind, member id>> -> remaining time]

vars == <<used, rounds, coord, procs, reqs, resps, timers>>

-----------------------------------------------------------------------------
(* Scalars                                                                  *)

Names == 1..NMembers                          \* A = 1, B = 2, ...
InitialNames == 1..(NMembers - NJoins)
Joiners == (NMembers - NJoins + 1)..NMembers
CoordNode == 100                              \* "coordinator" sorts after "A".."S"

\* A member id "A-3" is 100 * 1 + 3; 0 is "". Integer order is Go's string
\* order while the counter stays below 10 (the projection checks it).
MemberId(n, k) == 100 * n + k
NameOf(id) == id \div 100

\* A resource T-p is 100 * 1 + p (topic T = 1, U = 2, ...).
Res == {100 * t + p : t \in 1..NTopics, p \in 0..(NPartitions - 1)}
TopicOf(r) == r \div 100

NoGeneration == -1

\* Timing, in units of 1000 ms (world/check.go; member.go memberJoinSlack).
Heartbeat == 1
Session == 2
Rebalance == 3
JoinRequestTimeout == Rebalance + 5           \* rebalance timeout + memberJoinSlack
MaxDelay == 3                                 \* deferred, incremental: delay=3000
StepDelay == 1                                \* incremental: step-delay=1000 (moves=1)
\* Deferred's revocation back-off, min(backoffⁿ ms, MaxDelay) with
\* backoff=1000 (world/check.go), for n >= 1.
Backoff(n) == IF n <= 1 THEN 1 ELSE MaxDelay

\* Timer kinds, numbered in the order Go sorts their names at one node
\* (sim.Timers: "join" < "session(..)"; "heartbeat" < "request" < "scheduled-rebalance").
JoinTimer == 1
SessionTimer == 2
HeartbeatTimer == 3
RequestTimer == 4
ScheduledTimer == 5

JoinKey == <<CoordNode, JoinTimer, 0>>
SessionKey(id) == <<CoordNode, SessionTimer, id>>
MemberKey(n, kind) == <<n, kind, 0>>

\* Error codes (spec/errors.go).
None == 0
UnknownServerError == -1
IllegalGeneration == 22
UnknownMemberID == 25
RebalanceInProgress == 27

Eager == Policy = "eager"                     \* Member.eager

-----------------------------------------------------------------------------
(* Helpers                                                                  *)

Min2(a, b) == IF a <= b THEN a ELSE b
Max2(a, b) == IF a >= b THEN a ELSE b
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
MaxOf(S) == CHOOSE x \in S : \A y \in S : x >= y

\* The elements of a finite set of integers in increasing order.
RECURSIVE SortSet(_)
SortSet(S) == IF S = {} THEN <<>> ELSE <<MinOf(S)>> \o SortSet(S \ {MinOf(S)})

\* Applies Op to w and each element of the sequence xs in turn.
RECURSIVE Fold(_, _, _)
Fold(Op(_, _), w, xs) == IF xs = <<>> THEN w ELSE Fold(Op, Op(w, Head(xs)), Tail(xs))

\* The first k elements of a sequence.
Take(s, k) == [i \in 1..Min2(k, Len(s)) |-> s[i]]

Remove(f, x) == [y \in DOMAIN f \ {x} |-> f[y]]

-----------------------------------------------------------------------------
(* Records (see /work/notes/classic-repr.md)                               *)

NoPark == [ok |-> FALSE, cur |-> FALSE]        \* coordParked{}
NoSync == [member |-> 0, gen |-> 0, asgs |-> <<>>]   \* SyncGroupRequest{}

\* LeaderMemory{} (Designs II and III only; eager and cooperative keep none).
\* scheduledAt is the time until the scheduled delay's deadline (0: due),
\* or -1 for none (Go's instant 0).
ZeroMemory == [gen |-> 0, assignment |-> <<>>, members |-> <<>>, scheduledAt |-> -1,
               lost |-> {}, candidates |-> <<>>, successive |-> 0, revoked |-> FALSE]

\* A member process in state st with NewMember's zero values.
Fresh(st) == [st |-> st, id |-> 0, gen |-> NoGeneration, leader |-> 0, owned |-> {},
              ownedGen |-> NoGeneration, ownedLeader |-> 0, lastCompleted |-> NoGeneration,
              memory |-> ZeroMemory, wJoin |-> FALSE, wSync |-> FALSE, wHb |-> FALSE,
              rejoin |-> FALSE, sync |-> NoSync]

EmptyCoord == [state |-> "Empty", gen |-> 0, leader |-> 0, nextId |-> 1,
               members |-> <<>>, order |-> <<>>]

JoinResp(cur, err, gen, leader, member, members) ==
    [type |-> "JoinGroupResponse", cur |-> cur, error |-> err, gen |-> gen,
     leader |-> leader, member |-> member, members |-> members]
SyncResp(cur, err, asg) == [type |-> "SyncGroupResponse", cur |-> cur, error |-> err, asg |-> asg]
HbResp(cur, err) == [type |-> "HeartbeatResponse", cur |-> cur, error |-> err]

\* The world record: the variables, plus sent (rounds sent by this step) and
\* log (the send order of the connections, used by Init's stabilize only).
W == [used |-> used, coord |-> coord, procs |-> procs, reqs |-> reqs,
      resps |-> resps, timers |-> timers, sent |-> 0, log |-> <<>>]

-----------------------------------------------------------------------------
(* World plumbing: the network and the timers (world.go apply)              *)

ToCoord(w, n, msg) ==
    [w EXCEPT !.reqs[n] = Append(@, msg), !.log = Append(@, <<n, 0>>)]
ToMember(w, n, msg) ==
    [w EXCEPT !.resps[n] = Append(@, msg), !.log = Append(@, <<n, 1>>)]

Arm(w, key, d) == [w EXCEPT !.timers = (key :> d) @@ Remove(@, key)]
Disarm(w, key) == [w EXCEPT !.timers = Remove(@, key)]

\* Process n's request and response kinds: which messages and parked
\* requests carry a correlation id of that kind.
ReqType == [join |-> "JoinGroup", sync |-> "SyncGroup", hb |-> "Heartbeat"]
RespType == [join |-> "JoinGroupResponse", sync |-> "SyncGroupResponse", hb |-> "HeartbeatResponse"]
WaitField == [join |-> "wJoin", sync |-> "wSync", hb |-> "wHb"]

Unc(m, t) == IF m.type = t THEN [m EXCEPT !.cur = FALSE] ELSE m

\* Every request, parked request and response of kind k of process n is no
\* longer the one it waits for (its seq changed or was cleared).
Stale(w, n, k) ==
    LET ms == w.coord.members
        park(p) == [p EXCEPT !.cur = FALSE]
    IN [w EXCEPT
          !.reqs[n] = [i \in 1..Len(@) |-> Unc(@[i], ReqType[k])],
          !.resps[n] = [i \in 1..Len(@) |-> Unc(@[i], RespType[k])],
          !.coord.members =
              [id \in DOMAIN ms |->
                  IF NameOf(id) = n /\ k = "join" THEN [ms[id] EXCEPT !.join = park(@)]
                  ELSE IF NameOf(id) = n /\ k = "sync" THEN [ms[id] EXCEPT !.sync = park(@)]
                  ELSE ms[id]]]

\* joinSeq/syncSeq/heartbeatSeq = 0, or = a fresh seq (the caller sends the
\* request that carries it, with cur = TRUE).
ClearWait(w, n, k) == [Stale(w, n, k) EXCEPT !.procs[n][WaitField[k]] = FALSE]
NewWait(w, n, k) == [Stale(w, n, k) EXCEPT !.procs[n][WaitField[k]] = TRUE]
ClearAllWaits(w, n) == ClearWait(ClearWait(ClearWait(w, n, "join"), n, "sync"), n, "hb")

\* Member.cancelAll; world.Crash's Timers.DropNode.
CancelAll(w, n) == [w EXCEPT !.timers = [k \in {j \in DOMAIN @ : j[1] # n} |-> @[k]]]

-----------------------------------------------------------------------------
(* Policies (model/classic/policy): Assign(in) for the leader's round.     *)
(* in  = [gen, leader, lastCompleted, members: [id -> Sub], memory]        *)
(* out = [asgs: [id -> Asg], memory]                                       *)

\* assign.Range (range.go): per topic, the i-th member (by id; no static
\* members) gets the contiguous range i*(P/n) + min(i, P mod n).
RangeShare(ids, i) ==
    LET n == Len(ids)
        q == NPartitions \div n
        x == NPartitions % n
        k == i - 1
        start == k * q + Min2(k, x)
        len == q + (IF k < x THEN 1 ELSE 0)
    IN {100 * t + p : t \in 1..NTopics, p \in start..(start + len - 1)}

\* policy.Eager(assign.Range()) (eager.go).
AssignEager(in) ==
    LET ids == SortSet(DOMAIN in.members)
    IN [asgs |-> [id \in DOMAIN in.members |->
                     [assigned |-> RangeShare(ids, CHOOSE i \in 1..Len(ids) : ids[i] = id),
                      revoked |-> {}, delay |-> 0, leader |-> in.leader, error |-> None]],
        memory |-> ZeroMemory]

\* assign.resolveClaims (claims.go): the member that wins resource r, 0 if
\* nobody claims it or the highest generation is tied.
Claimants(ms, r) == {i \in DOMAIN ms : r \in ms[i].owned}
Winner(ms, r) ==
    LET cl == Claimants(ms, r)
        top == MaxOf({ms[i].gen : i \in cl})
        tops == {i \in cl : ms[i].gen = top}
    IN IF cl # {} /\ Cardinality(tops) = 1 THEN CHOOSE i \in tops : TRUE ELSE 0
Won(ms, i) == {r \in ms[i].owned \cap Res : Winner(ms, r) = i}

\* The won resources S of a member in the order the constrained builder
\* keeps them (sticky.go wonDense): by partition number, then by topic
\* (T-0, U-0, T-1, ...). That is Kafka's order since 3.8 (KAFKA-16277):
\* AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignOwnedPartitions
\* sorts each consumer's owned partitions by partition, then topic, and
\* keeps the first minQuota or maxQuota of them. A resource 100 * t + p has
\* the key 100 * p + t, which orders by (p, t) and maps back one to one.
ByPartition(S) ==
    LET ks == SortSet({100 * (r % 100) + TopicOf(r) : r \in S})
    IN [j \in 1..Len(ks) |-> 100 * (ks[j] % 100) + ks[j] \div 100]

\* The fill of assign.assignHomogeneous (sticky.go fillRoundRobin), as
\* Kafka's AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignRoundRobin
\* hands out the free partitions: the free resources, in order, go one each
\* to the members of the sequence under (those below minQ, by id),
\* round-robin; a member still below minQ goes back to the end of under,
\* one that reaches minQ leaves it and, if its quota is minQ + 1, joins the
\* end of waiting. Once under is empty, the members of waiting (those at
\* minQ under a quota of minQ + 1 before the fill, by id, then the others
\* in the order they reached minQ) take one each, in order. It is not a
\* least-loaded fill: a member below minQ takes one per pass whatever it
\* already holds.
RECURSIVE Fill(_, _, _, _, _, _)
Fill(free, a, under, waiting, quota, minQ) ==
    IF free = <<>> THEN a
    ELSE IF under # <<>>
         THEN LET i == Head(under)
                  b == [a EXCEPT ![i] = @ \cup {Head(free)}]
                  c == Cardinality(b[i])
              IN Fill(Tail(free), b,
                      IF c < minQ THEN Append(Tail(under), i) ELSE Tail(under),
                      IF c >= minQ /\ c < quota[i] THEN Append(waiting, i) ELSE waiting,
                      quota, minQ)
         ELSE LET i == Head(waiting)
              IN Fill(Tail(free), [a EXCEPT ![i] = @ \cup {Head(free)}],
                      under, Tail(waiting), quota, minQ)

\* assign.stickyTarget for a homogeneous group (sticky.go assignHomogeneous):
\* every member subscribes to every topic, all of which have partitions.
StickyTarget(ms) ==
    LET ids == DOMAIN ms
        n == Cardinality(ids)
        won == [i \in ids |-> Won(ms, i)]
        minQ == Cardinality(Res) \div n
        extra == Cardinality(Res) % n
        \* stable sort by won count, decreasing, ties by id
        rank(i) == Cardinality({j \in ids : Cardinality(won[j]) > Cardinality(won[i])
                                \/ (Cardinality(won[j]) = Cardinality(won[i]) /\ j < i)})
        quota == [i \in ids |-> minQ + (IF rank(i) < extra THEN 1 ELSE 0)]
        \* each member keeps its won resources up to its quota, in Kafka's
        \* order (ByPartition; assignOwnedPartitions)
        kept == [i \in ids |-> LET s == Take(ByPartition(won[i]), quota[i])
                               IN {s[j] : j \in DOMAIN s}]
        taken == UNION {kept[i] : i \in ids}
        \* the round-robin's starting sequences (assignRoundRobin)
        under == SortSet({i \in ids : Cardinality(kept[i]) < minQ})
        waiting == SortSet({i \in ids : minQ <= Cardinality(kept[i])
                                        /\ Cardinality(kept[i]) < quota[i]})
    IN Fill(SortSet(Res \ taken), kept, under, waiting, quota, minQ)

\* policy.Cooperative (cooperative.go) over assign.CooperativeSticky
\* (cooperative.go withhold): the sticky target minus every resource whose
\* owner changes in this round; claimants revoke what they are not given.
AssignCooperative(in) ==
    LET ms == in.members
        target == StickyTarget(ms)
        assigned == [i \in DOMAIN ms |->
                        {r \in target[i] : ~(Claimants(ms, r) # {} /\ Winner(ms, r) # i)}]
    IN [asgs |-> [i \in DOMAIN ms |->
                     [assigned |-> assigned[i], revoked |-> ms[i].owned \ assigned[i],
                      delay |-> 0, leader |-> in.leader, error |-> None]],
        memory |-> ZeroMemory]

SetOf(s) == {s[i] : i \in DOMAIN s}
UnionOf(f) == UNION {f[i] : i \in DOMAIN f}
Card(S) == Cardinality(S)

\* assign.LeastLoaded (connect.go), tasks only: each resource of items, in
\* order, to the member with the fewest (ties to the lower id), never to
\* the member from[x] it was taken from (leaderRound.eligibleFor).
RECURSIVE PlaceLL(_, _, _)
PlaceLL(a, items, from) ==
    IF items = <<>> THEN a
    ELSE LET x == Head(items)
             el == {m \in DOMAIN a : ~(x \in DOMAIN from /\ from[x] = m)}
         IN IF x \in UnionOf(a) \/ el = {} THEN PlaceLL(a, Tail(items), from)
            ELSE LET best == CHOOSE m \in el : \A j \in el :
                                 Card(a[m]) < Card(a[j]) \/ (Card(a[m]) = Card(a[j]) /\ m <= j)
                 IN PlaceLL([a EXCEPT ![best] = @ \cup {x}], Tail(items), from)

\* leaderRound.settle (balance.go): move a resource given in this round
\* (not claimed by its holder) from the most loaded member to the least
\* loaded other one while that holds two fewer. (Go breaks count ties by
\* the previous pass's order; with two members, or one move, that is the
\* id order used here.)
RECURSIVE Settle(_, _, _)
Settle(a, ms, from) ==
    LET cnt(m) == Card(a[m])
        low == MinOf({cnt(m) : m \in DOMAIN a})
        elig(e, x) == ~(x \in DOMAIN from /\ from[x] = e)
        ll(m, x) == {e \in DOMAIN a \ {m} :
                        elig(e, x) /\ \A j \in DOMAIN a \ {m} :
                            elig(j, x) => (cnt(e) < cnt(j) \/ (cnt(e) = cnt(j) /\ e <= j))}
        cand(m, x) == x \notin ms[m].owned /\ cnt(m) >= low + 2
                      /\ \E e \in ll(m, x) : cnt(e) + 2 <= cnt(m)
        before(m1, m2) == cnt(m1) > cnt(m2) \/ (cnt(m1) = cnt(m2) /\ m1 < m2)
        movers == {m \in DOMAIN a : \E x \in a[m] : cand(m, x)}
    IN IF movers = {} THEN a
       ELSE LET m == CHOOSE m \in movers : \A j \in movers : m = j \/ before(m, j)
                x == MaxOf({y \in a[m] : cand(m, y)})
                e == CHOOSE e \in ll(m, x) : TRUE
            IN Settle([a EXCEPT ![m] = @ \ {x}, ![e] = @ \cup {x}], ms, from)

\* leaderRound.place: least loaded, then settle.
Place(a, add, from, ms) == Settle(PlaceLL(a, SortSet(add), from), ms, from)

\* leaderRound.connectRule with assign.ConnectBalanceTargets (homogeneous
\* subscriptions): each member cut to its target, giving up first what it
\* was given in this round, then what it owned, each from the last down.
ConnectRuleSeq(next, ms) ==
    LET ids == DOMAIN next
        n == Card(Res)
        w == Card(ids)
        low == n \div w
        extras == n % w
        load(m) == Card(next[m])
        ext1 == {m \in ids : load(m) > low /\ Card({j \in ids : j < m /\ load(j) > low}) < extras}
        rem == extras - Card(ext1)
        ext2 == {m \in ids \ ext1 : Card({j \in ids \ ext1 : j < m}) < rem}
        target(m) == low + (IF m \in ext1 \cup ext2 THEN 1 ELSE 0)
        desc(S) == LET s == SortSet(S) IN [i \in 1..Len(s) |-> s[Len(s) + 1 - i]]
        order(m) == desc({x \in next[m] : x \notin ms[m].owned}) \o desc({x \in next[m] : x \in ms[m].owned})
    IN [m \in ids |-> IF load(m) > target(m) THEN Take(order(m), load(m) - target(m)) ELSE <<>>]

ConnectRule(next, ms) == LET full == ConnectRuleSeq(next, ms) IN [m \in DOMAIN full |-> SetOf(full[m])]

\* leaderRound.incrementalBalance (incremental.go), homogeneous, moves=1:
\* the first of Connect's revocations of the most loaded member (ties to
\* the lower id), and a step StepDelay later while more remain.
IncrementalBalance(next, ms, s) ==
    LET ids == DOMAIN next
        full == ConnectRuleSeq(next, ms)
        noPlan == [m \in ids |-> {}]
        want == {m \in ids : full[m] # <<>>}
        stop == [s EXCEPT !.revoked = FALSE, !.successive = 0, !.scheduledAt = -1]
    IN CASE want = {} -> [delay |-> 0, plan |-> noPlan, sched |-> stop]
         [] s.scheduledAt > 0 ->
              LET d == Min2(s.scheduledAt, StepDelay)
              IN [delay |-> d, plan |-> noPlan, sched |-> [s EXCEPT !.scheduledAt = d]]
         [] s.revoked /\ s.scheduledAt < 0 ->
              [delay |-> StepDelay, plan |-> noPlan, sched |-> [s EXCEPT !.scheduledAt = StepDelay]]
         [] OTHER ->
              LET best == CHOOSE m \in want : \A j \in want :
                              Card(next[m]) > Card(next[j]) \/ (Card(next[m]) = Card(next[j]) /\ m <= j)
                  remain == Card(UNION {SetOf(full[m]) : m \in ids}) > 1
              IN [delay |-> IF remain THEN StepDelay ELSE 0,
                  plan |-> [m \in ids |-> IF m = best THEN {Head(full[m])} ELSE {}],
                  sched |-> [s EXCEPT !.revoked = TRUE, !.successive = @ + 1,
                                      !.scheduledAt = IF remain THEN StepDelay ELSE -1]]

\* leaderRound.handleLost (deferred.go step 5): the delay, what to hand
\* out least loaded, what is held back, the assignment (lost resources
\* may go round-robin to candidates) and the schedule.
HandleLost(lost, prevMembers, s, next) ==
    LET ids == DOMAIN next
        reset == [s EXCEPT !.candidates = <<>>, !.scheduledAt = -1]
    IN CASE lost = {} /\ ~s.revoked ->
              [delay |-> 0, reassign |-> {}, held |-> {}, next |-> next, sched |-> reset]
         [] s.scheduledAt < 0 /\ SetOf(prevMembers) \subseteq ids ->
              [delay |-> 0, reassign |-> lost, held |-> {}, next |-> next, sched |-> s]
         [] s.scheduledAt = 0 ->
              LET cands == SelectSeq(s.candidates, LAMBDA c : c \in ids)
                  ls == SortSet(lost)
                  rr == [m \in ids |-> next[m] \cup
                           {ls[i] : i \in {j \in DOMAIN ls : cands # <<>> /\ cands[((j - 1) % Len(cands)) + 1] = m}}]
              IN [delay |-> 0, reassign |-> IF cands = <<>> THEN lost ELSE {}, held |-> {},
                  next |-> rr, sched |-> [reset EXCEPT !.revoked = FALSE]]
         [] OTHER ->
              LET d == IF s.scheduledAt > 0 THEN Min2(s.scheduledAt, MaxDelay) ELSE MaxDelay
              IN [delay |-> d, reassign |-> {}, held |-> lost, next |-> next,
                  sched |-> [s EXCEPT !.candidates = SortSet(SetOf(@) \cup {m \in ids : next[m] = {}}),
                                      !.scheduledAt = d]]

\* policy.Deferred (deferred.go, balance.go): Kafka Connect's
\* IncrementalCooperativeAssignor, ReassignImmediately, homogeneous
\* subscriptions (every member subscribes to every topic), tasks only;
\* with incremental, policy.Incremental (incremental.go), whose step 6 is
\* IncrementalBalance.
AssignConnect(in, incremental) ==
    LET ms == in.members
        ids == DOMAIN ms
        owned == [m \in ids |-> ms[m].owned]
        active == UnionOf(owned)
        duplicated == {x \in active : Card(Claimants(ms, x)) > 1}
        mem == in.memory
        known == mem.members # <<>> /\ mem.gen = in.lastCompleted
        prev0 == IF known THEN UnionOf(mem.assignment) \cup mem.lost ELSE {}
        previous == IF known /\ active \ prev0 # {} THEN active ELSE prev0
        lost == previous \ active
        created == (Res \ previous) \ active
        drop == [m \in ids |-> owned[m] \cap duplicated]
        next0 == [m \in ids |-> owned[m] \ drop[m]]
        pending == UnionOf(drop)
        s0 == [scheduledAt |-> mem.scheduledAt, candidates |-> mem.candidates,
               revoked |-> mem.revoked, successive |-> mem.successive]
        hl == HandleLost(lost, mem.members, s0, next0)
        next == hl.next
        toAssign == hl.reassign \cup created
        s1 == hl.sched
        noPlan == [m \in ids |-> {}]
        plan0 == ConnectRule(next, ms)
        revoke == \E m \in ids : plan0[m] # {}
        bal == IF hl.delay # 0
               THEN [delay |-> hl.delay, plan |-> noPlan,
                     sched |-> IF incremental THEN s1 ELSE [s1 EXCEPT !.revoked = FALSE]]
               ELSE IF incremental THEN IncrementalBalance(next, ms, s1)
               ELSE CASE s1.revoked /\ revoke ->
                           LET k == s1.successive + 1
                           IN [delay |-> Backoff(k), plan |-> noPlan,
                               sched |-> [s1 EXCEPT !.successive = k, !.scheduledAt = Backoff(k)]]
                      [] revoke -> [delay |-> 0, plan |-> plan0, sched |-> [s1 EXCEPT !.revoked = TRUE]]
                      [] s1.revoked ->
                           [delay |-> 0, plan |-> noPlan,
                            sched |-> [s1 EXCEPT !.revoked = FALSE, !.successive = 0]]
                      [] OTHER -> [delay |-> 0, plan |-> noPlan, sched |-> s1]
        plan == bal.plan
        \* leaderRound.thisRound / finish
        freshTaken == UNION {{x \in plan[m] : x \notin owned[m]} : m \in ids}
        from == [x \in freshTaken |-> CHOOSE m \in ids : x \in plan[m]]
        final == IF \A m \in ids : plan[m] = {}
                 THEN Place(next, toAssign, <<>>, ms)
                 ELSE Place([m \in ids |-> next[m] \ plan[m]], toAssign \cup freshTaken, from, ms)
        revoked == [m \in ids |-> drop[m] \cup (plan[m] \cap owned[m])]
        s2 == bal.sched
    IN [asgs |-> [m \in ids |-> [assigned |-> final[m], revoked |-> revoked[m],
                                 delay |-> bal.delay, leader |-> in.leader, error |-> None]],
        memory |-> [gen |-> in.gen, assignment |-> final, members |-> SortSet(ids),
                    scheduledAt |-> s2.scheduledAt, lost |-> hl.held,
                    candidates |-> s2.candidates, successive |-> s2.successive,
                    revoked |-> s2.revoked]]

Assign(policy, in) ==
    CASE policy = "eager" -> AssignEager(in)
      [] policy = "cooperative" -> AssignCooperative(in)
      [] policy = "deferred" -> AssignConnect(in, FALSE)
      [] policy = "incremental" -> AssignConnect(in, TRUE)

-----------------------------------------------------------------------------
(* Member (member*.go)                                                      *)

\* Member.subscription: the metadata of a JoinGroup.
Subscription(p) == [owned |-> p.owned, gen |-> Max2(p.gen, p.ownedGen), leader |-> p.ownedLeader]

\* Member.sendJoin (member_join.go).
SendJoin(w, n) ==
    LET w1 == NewWait(w, n, "join")
        p == w1.procs[n]
        w2 == ToCoord(w1, n, [type |-> "JoinGroup", cur |-> TRUE, member |-> p.id,
                              meta |-> Subscription(p)])
    IN Arm(w2, MemberKey(n, RequestTimer), JoinRequestTimeout)

\* Member.sendSync (member_join.go).
SendSync(w, n) ==
    LET w1 == NewWait(w, n, "sync")
        s == w1.procs[n].sync
        w2 == ToCoord(w1, n, [type |-> "SyncGroup", cur |-> TRUE, member |-> s.member,
                              gen |-> s.gen, asgs |-> s.asgs])
    IN Arm(w2, MemberKey(n, RequestTimer), Session)

\* Member.prepareJoin (member_join.go): an eager member revokes everything;
\* a cooperative one keeps what it owns (it subscribes to every topic).
PrepareJoin(w, n) == IF Eager THEN [w EXCEPT !.procs[n].owned = {}] ELSE w

\* Member.joinGroup (member_join.go).
MemberJoinGroup(w, n) ==
    LET w1 == PrepareJoin(w, n)
        w2 == [w1 EXCEPT !.procs[n].st = "joining", !.procs[n].rejoin = FALSE]
    IN SendJoin(ClearWait(ClearWait(w2, n, "sync"), n, "hb"), n)

\* Member.lose (member_sync.go).
Lose(w, n) == [w EXCEPT !.procs[n].owned = {}, !.procs[n].ownedGen = NoGeneration,
                        !.procs[n].ownedLeader = 0]

\* Member.resetGeneration (member_sync.go).
ResetGeneration(w, n, memberID) ==
    [w EXCEPT !.procs[n].gen = NoGeneration, !.procs[n].leader = 0,
              !.procs[n].id = IF memberID THEN 0 ELSE @]

\* Member.fail (member_sync.go): the checker's encoding keeps only the
\* state and the view (id; lose reset the owned generation).
Fail(w, n) ==
    LET w1 == ClearAllWaits(CancelAll(Lose(w, n), n), n)
    IN [w1 EXCEPT !.procs[n] = [Fresh("failed") EXCEPT !.id = w1.procs[n].id]]

\* Member.requestRejoin (member_events.go), not fresh.
RequestRejoin(w, n) ==
    CASE w.procs[n].st = "stable" -> MemberJoinGroup(w, n)
      [] w.procs[n].st = "awaiting-sync" -> [w EXCEPT !.procs[n].rejoin = TRUE]
      [] OTHER -> w

\* Member.lead (member_join.go): run the policy on the JoinGroup response's
\* members. The round always passes spec.CheckRound here.
Lead(w, n, r) ==
    LET p == w.procs[n]
    IN Assign(Policy, [gen |-> r.gen, leader |-> r.leader, lastCompleted |-> p.lastCompleted,
                       members |-> r.members, memory |-> p.memory])

\* Member.joined (member_join.go).
Joined(w, n, r) ==
    LET p == w.procs[n]
        leads == r.leader = r.member
        res == IF leads THEN Lead(w, n, r) ELSE [asgs |-> <<>>, memory |-> p.memory]
        w1 == [w EXCEPT !.procs[n].id = r.member, !.procs[n].gen = r.gen,
                        !.procs[n].leader = r.leader, !.procs[n].memory = res.memory,
                        !.procs[n].st = "awaiting-sync",
                        !.procs[n].sync = [member |-> r.member, gen |-> r.gen, asgs |-> res.asgs],
                        !.sent = @ + (IF leads THEN 1 ELSE 0)]
        w2 == SendSync(w1, n)
    IN IF MemberKey(n, HeartbeatTimer) \in DOMAIN w2.timers THEN w2
       ELSE Arm(w2, MemberKey(n, HeartbeatTimer), Heartbeat)

\* Member.joinResponse (member_join.go).
JoinResponse(w, n, r) ==
    IF w.procs[n].st # "joining" \/ ~r.cur THEN w
    ELSE LET w1 == ClearWait(w, n, "join")
         IN CASE r.error = None -> Joined(w1, n, r)
              [] r.error = UnknownMemberID ->
                    MemberJoinGroup(ResetGeneration(Lose(w1, n), n, TRUE), n)
              [] r.error = RebalanceInProgress -> SendJoin(w1, n)
              [] OTHER -> Fail(w1, n)

\* Member.synced (member_sync.go). Every assignment is of subscribed topics.
Synced(w, n, asg) ==
    IF asg = <<>> THEN Fail(w, n)          \* DecodeAssignment("") fails
    ELSE
    LET a == asg[1]
        p == w.procs[n]
        w1 == [Disarm(w, MemberKey(n, RequestTimer)) EXCEPT !.procs[n].st = "stable"]
        revoked == (p.owned \ a.assigned) \cup (a.revoked \cap p.owned)
        w2 == IF a.error # None THEN w1
              ELSE [w1 EXCEPT !.procs[n].owned = a.assigned, !.procs[n].ownedGen = p.gen,
                              !.procs[n].ownedLeader = p.leader, !.procs[n].lastCompleted = p.gen]
        w3 == IF a.error = None /\ a.delay > 0
              THEN Arm(w2, MemberKey(n, ScheduledTimer), a.delay) ELSE w2
        followUp == a.error = None /\ ~Eager /\ (revoked # {} \/ a.revoked # {})
    IN IF followUp \/ p.rejoin THEN MemberJoinGroup(w3, n) ELSE w3

\* Member.syncResponse (member_sync.go).
SyncResponse(w, n, r) ==
    IF w.procs[n].st # "awaiting-sync" \/ ~r.cur THEN w
    ELSE LET w1 == ClearWait(w, n, "sync")
         IN CASE r.error = None -> Synced(w1, n, r.asg)
              [] r.error = RebalanceInProgress -> MemberJoinGroup(w1, n)
              [] r.error = IllegalGeneration ->
                    MemberJoinGroup(ResetGeneration(Lose(w1, n), n, FALSE), n)
              [] r.error = UnknownMemberID ->
                    MemberJoinGroup(ResetGeneration(Lose(w1, n), n, TRUE), n)
              [] OTHER -> Fail(w1, n)

\* Member.heartbeatResponse (member_sync.go).
HeartbeatResponse(w, n, r) ==
    IF w.procs[n].st \notin {"awaiting-sync", "stable"} \/ ~r.cur THEN w
    ELSE LET w1 == ClearWait(w, n, "hb")
         IN CASE r.error = None -> w1
              [] r.error = RebalanceInProgress -> RequestRejoin(w1, n)
              [] r.error = IllegalGeneration ->
                    MemberJoinGroup(ResetGeneration(Lose(w1, n), n, FALSE), n)
              [] r.error = UnknownMemberID ->
                    MemberJoinGroup(ResetGeneration(Lose(w1, n), n, TRUE), n)
              [] OTHER -> Fail(w1, n)

\* Member.receive (member.go). A left or failed member ignores everything.
MemberReceive(w, n, msg) ==
    IF w.procs[n].st \in {"left", "failed"} THEN w
    ELSE CASE msg.type = "JoinGroupResponse" -> JoinResponse(w, n, msg)
           [] msg.type = "SyncGroupResponse" -> SyncResponse(w, n, msg)
           [] msg.type = "HeartbeatResponse" -> HeartbeatResponse(w, n, msg)
           [] OTHER -> w                         \* LeaveGroupResponse

\* Member.timerFired (member_events.go).
MemberTimer(w, n, kind) ==
    LET st == w.procs[n].st
    IN CASE kind = HeartbeatTimer ->
              IF st \in {"awaiting-sync", "stable"}
              THEN LET w1 == NewWait(w, n, "hb")
                       p == w1.procs[n]
                       w2 == ToCoord(w1, n, [type |-> "Heartbeat", cur |-> TRUE,
                                             member |-> p.id, gen |-> p.gen])
                   IN Arm(w2, MemberKey(n, HeartbeatTimer), Heartbeat)
              ELSE w
         [] kind = RequestTimer ->
              CASE st = "joining" -> SendJoin(w, n)
                [] st = "awaiting-sync" -> SendSync(w, n)
                [] OTHER -> w
         [] kind = ScheduledTimer -> RequestRejoin(w, n)

\* Member.leave (member_events.go): the checker's encoding keeps only the
\* state and the view (id and owned generation) of a member that left.
MemberLeave(w, n) ==
    LET p == w.procs[n]
        w1 == IF p.id # 0 THEN ToCoord(w, n, [type |-> "LeaveGroup", member |-> p.id]) ELSE w
        w2 == ClearAllWaits(CancelAll(w1, n), n)
    IN [w2 EXCEPT !.procs[n] = [Fresh("left") EXCEPT !.id = p.id, !.ownedGen = p.ownedGen]]

-----------------------------------------------------------------------------
(* Coordinator (coordinator*.go)                                            *)

ArmSession(w, id) == Arm(w, SessionKey(id), Session)

AllJoined(c) == \A id \in DOMAIN c.members : c.members[id].join.ok

\* Coordinator.park: a newer JoinGroup replaces the parked one and keeps its
\* arrival rank.
Park(w, id, cur) ==
    [w EXCEPT !.coord.order = IF w.coord.members[id].join.ok THEN @ ELSE Append(@, id),
              !.coord.members[id].join = [ok |-> TRUE, cur |-> cur]]

CurrentJoinResponse(c, cur, id, withMembers) ==
    JoinResp(cur, None, c.gen, c.leader, id,
             IF withMembers THEN [i \in DOMAIN c.members |-> c.members[i].meta] ELSE <<>>)

\* Coordinator.dropMember (coordinator_sync.go).
DropMember(w, id) ==
    LET m == w.coord.members[id]
        w1 == Disarm(w, SessionKey(id))
        w2 == IF m.join.ok
              THEN ToMember(w1, NameOf(id), JoinResp(m.join.cur, UnknownMemberID, 0, 0, 0, <<>>))
              ELSE w1
    IN [w2 EXCEPT !.coord.members = Remove(@, id),
                  !.coord.order = SelectSeq(@, LAMBDA x : x # id),
                  !.coord.leader = IF @ = id THEN 0 ELSE @]

DropIfNotJoined(w, id) == IF w.coord.members[id].join.ok THEN w ELSE DropMember(w, id)

AnswerJoin(w, id) ==
    LET c == w.coord
        m == c.members[id]
        w1 == ToMember(w, NameOf(id), CurrentJoinResponse(c, m.join.cur, id, id = c.leader))
    IN ArmSession([w1 EXCEPT !.coord.members[id].join = NoPark,
                             !.coord.members[id].asg = <<>>], id)

\* Coordinator.completeJoin (coordinator_join.go): the barrier falls.
CompleteJoin(w) ==
    LET w1 == Disarm(w, JoinKey)
        w2 == Fold(DropIfNotJoined, w1, SortSet(DOMAIN w1.coord.members))
        w3 == [w2 EXCEPT !.coord.gen = @ + 1]
    IN IF DOMAIN w3.coord.members = {}
       THEN [w3 EXCEPT !.coord.state = "Empty", !.coord.leader = 0]
       ELSE LET w4 == IF w3.coord.leader \in DOMAIN w3.coord.members THEN w3
                      ELSE [w3 EXCEPT !.coord.leader = Head(w3.coord.order)]
                w5 == Fold(AnswerJoin, w4, SortSet(DOMAIN w4.coord.members))
            IN [w5 EXCEPT !.coord.state = "CompletingRebalance", !.coord.order = <<>>]

MaybeCompleteJoin(w) == IF AllJoined(w.coord) THEN CompleteJoin(w) ELSE w

\* prepareRebalance from CompletingRebalance: parked SyncGroups are
\* answered REBALANCE_IN_PROGRESS, stored assignments dropped.
ResetSync(w, id) ==
    LET m == w.coord.members[id]
        w1 == [w EXCEPT !.coord.members[id].asg = <<>>]
    IN IF m.sync.ok
       THEN ArmSession([ToMember(w1, NameOf(id), SyncResp(m.sync.cur, RebalanceInProgress, <<>>))
                          EXCEPT !.coord.members[id].sync = NoPark], id)
       ELSE w1

\* Coordinator.prepareRebalance (coordinator_join.go).
PrepareRebalance(w) ==
    LET w1 == IF w.coord.state = "CompletingRebalance"
              THEN Fold(ResetSync, w, SortSet(DOMAIN w.coord.members)) ELSE w
        w2 == [w1 EXCEPT !.coord.state = "PreparingRebalance"]
    IN IF AllJoined(w2.coord) THEN CompleteJoin(w2) ELSE Arm(w2, JoinKey, Rebalance)

\* Coordinator.removeMember (coordinator_sync.go).
RemoveMember(w, id) ==
    LET w1 == DropMember(w, id)
    IN IF w1.coord.state \in {"Stable", "CompletingRebalance"} THEN PrepareRebalance(w1)
       ELSE MaybeCompleteJoin(w1)

\* Coordinator.joinNew (coordinator_join.go).
JoinNew(w, n, req) ==
    LET id == MemberId(n, w.coord.nextId)
        w1 == [w EXCEPT !.coord.nextId = @ + 1,
                        !.coord.members = (id :> [meta |-> req.meta, asg |-> <<>>,
                                                  join |-> NoPark, sync |-> NoPark]) @@ @]
        w2 == Park(ArmSession(w1, id), id, req.cur)
    IN IF w.coord.state = "PreparingRebalance" THEN MaybeCompleteJoin(w2) ELSE PrepareRebalance(w2)

\* Coordinator.joinExisting (coordinator_join.go).
JoinExisting(w, n, req) ==
    LET id == req.member
        c == w.coord
        same == c.members[id].meta = req.meta
        w1 == ArmSession([w EXCEPT !.coord.members[id].meta = req.meta], id)
    IN CASE c.state = "PreparingRebalance" -> MaybeCompleteJoin(Park(w1, id, req.cur))
         [] c.state = "CompletingRebalance" ->
              IF same THEN ToMember(w1, n, CurrentJoinResponse(w1.coord, req.cur, id, id = c.leader))
              ELSE PrepareRebalance(Park(w1, id, req.cur))
         [] c.state = "Stable" ->
              IF same /\ id # c.leader THEN ToMember(w1, n, CurrentJoinResponse(w1.coord, req.cur, id, FALSE))
              ELSE PrepareRebalance(Park(w1, id, req.cur))

\* Coordinator.handleJoin (coordinator_join.go): dynamic members only.
HandleJoin(w, n, req) ==
    IF req.member = 0 THEN JoinNew(w, n, req)
    ELSE IF req.member \notin DOMAIN w.coord.members
    THEN ToMember(w, n, JoinResp(req.cur, UnknownMemberID, 0, 0, req.member, <<>>))
    ELSE JoinExisting(w, n, req)

AnswerSync(w, id) ==
    LET m == w.coord.members[id]
    IN IF m.sync.ok
       THEN ArmSession([ToMember(w, NameOf(id), SyncResp(m.sync.cur, None, m.asg))
                          EXCEPT !.coord.members[id].sync = NoPark], id)
       ELSE w

\* Coordinator.handleSync (coordinator_sync.go).
HandleSync(w, n, req) ==
    LET c == w.coord
        id == req.member
    IN IF id \notin DOMAIN c.members THEN ToMember(w, n, SyncResp(req.cur, UnknownMemberID, <<>>))
       ELSE IF req.gen # c.gen THEN ToMember(w, n, SyncResp(req.cur, IllegalGeneration, <<>>))
       ELSE CASE c.state = "PreparingRebalance" ->
                   ToMember(w, n, SyncResp(req.cur, RebalanceInProgress, <<>>))
              [] c.state = "CompletingRebalance" ->
                   LET w1 == ArmSession([w EXCEPT !.coord.members[id].sync =
                                                      [ok |-> TRUE, cur |-> req.cur]], id)
                       ms == w1.coord.members
                       w2 == [w1 EXCEPT !.coord.members =
                                [i \in DOMAIN ms |->
                                    [ms[i] EXCEPT !.asg = IF i \in DOMAIN req.asgs
                                                          THEN <<req.asgs[i]>> ELSE <<>>]]]
                       w3 == Fold(AnswerSync, w2, SortSet(DOMAIN ms))
                   IN IF id # c.leader THEN w1
                      ELSE [w3 EXCEPT !.coord.state = "Stable"]
              [] c.state = "Stable" ->
                   ArmSession(ToMember(w, n, SyncResp(req.cur, None, c.members[id].asg)), id)

\* Coordinator.handleHeartbeat (coordinator_sync.go).
HandleHeartbeat(w, n, req) ==
    LET c == w.coord
    IN IF req.member \notin DOMAIN c.members THEN ToMember(w, n, HbResp(req.cur, UnknownMemberID))
       ELSE IF req.gen # c.gen THEN ToMember(w, n, HbResp(req.cur, IllegalGeneration))
       ELSE ArmSession(ToMember(w, n, HbResp(req.cur, IF c.state = "PreparingRebalance"
                                                       THEN RebalanceInProgress ELSE None)),
                       req.member)

\* Coordinator.handleLeave (coordinator_sync.go).
HandleLeave(w, n, req) ==
    LET ok == req.member \in DOMAIN w.coord.members
        w1 == ToMember(w, n, [type |-> "LeaveGroupResponse",
                              error |-> IF ok THEN None ELSE UnknownMemberID])
    IN IF ok THEN RemoveMember(w1, req.member) ELSE w1

CoordReceive(w, n, msg) ==
    CASE msg.type = "JoinGroup" -> HandleJoin(w, n, msg)
      [] msg.type = "SyncGroup" -> HandleSync(w, n, msg)
      [] msg.type = "Heartbeat" -> HandleHeartbeat(w, n, msg)
      [] msg.type = "LeaveGroup" -> HandleLeave(w, n, msg)

\* Coordinator.handleTimer (coordinator.go) and expireSession.
CoordTimer(w, key) ==
    IF key[2] = JoinTimer THEN CompleteJoin(w)
    ELSE LET m == w.coord.members[key[3]]
         IN IF m.join.ok \/ m.sync.ok THEN w ELSE RemoveMember(w, key[3])

-----------------------------------------------------------------------------
(* The world's steps (world.go Deliver, FireTimer; actions.go)              *)

\* Deliver the oldest message of connection c = <<n, 0>> (n -> coordinator)
\* or <<n, 1>> (coordinator -> n). A process that is down loses it.
DeliverConn(w, c) ==
    LET n == c[1]
    IN IF c[2] = 0
       THEN CoordReceive([w EXCEPT !.reqs[n] = Tail(@)], n, Head(w.reqs[n]))
       ELSE IF w.procs[n].st = "down" THEN [w EXCEPT !.resps[n] = Tail(@)]
       ELSE MemberReceive([w EXCEPT !.resps[n] = Tail(@)], n, Head(w.resps[n]))

\* AddMember: create the process and Start it.
StartMember(w, n) == MemberJoinGroup([w EXCEPT !.procs[n] = Fresh("unjoined")], n)

Conns == Names \X {0, 1}
Queue(c) == IF c[2] = 0 THEN reqs[c[1]] ELSE resps[c[1]]
Quiet == \A c \in Conns : Queue(c) = <<>>

\* The step's successor: the world's new fields and the rounds counter
\* (world.Model.Step: reset by environment actions and by detecting timers).
Finish(w, reset) ==
    /\ used' = w.used
    /\ coord' = w.coord
    /\ procs' = w.procs
    /\ reqs' = w.reqs
    /\ resps' = w.resps
    /\ timers' = w.timers
    /\ rounds' = Min2((IF reset THEN 0 ELSE rounds) + w.sent, MaxRounds + 1)

Live(n) == procs[n].st \notin {"absent", "down", "left", "failed"}

\* Own: deliver the oldest message of a connection.
Deliver(c) ==
    /\ Queue(c) # <<>>
    /\ Finish(DeliverConn(W, c), FALSE)

\* Own: fire the first timer (deadline, node, timer name), moving the clock
\* to it; only when nothing is in flight (Bounds.Prompt).
Fire ==
    /\ DOMAIN timers # {}
    /\ Quiet
    /\ LET before(a, b) ==
               \/ timers[a] < timers[b]
               \/ timers[a] = timers[b] /\ a[1] < b[1]
               \/ timers[a] = timers[b] /\ a[1] = b[1] /\ a[2] < b[2]
               \/ timers[a] = timers[b] /\ a[1] = b[1] /\ a[2] = b[2] /\ a[3] <= b[3]
           k == CHOOSE a \in DOMAIN timers : \A b \in DOMAIN timers : before(a, b)
           d == timers[k]
           later(x) == IF x < 0 THEN x ELSE Max2(x - d, 0)
           w0 == [W EXCEPT !.timers = [j \in DOMAIN timers \ {k} |-> Max2(timers[j] - d, 0)],
                           !.procs = [n \in Names |->
                                         [procs[n] EXCEPT !.memory.scheduledAt = later(@)]]]
           w1 == IF k[1] = CoordNode THEN CoordTimer(w0, k) ELSE MemberTimer(w0, k[1], k[2])
       IN Finish(w1, k[2] \in {SessionTimer, RequestTimer})

\* Environment: lose the oldest message of a connection.
Drop(c) ==
    /\ used.drops < MaxDrops
    /\ Queue(c) # <<>>
    /\ Finish([W EXCEPT !.used.drops = @ + 1,
                        !.reqs[c[1]] = IF c[2] = 0 THEN Tail(@) ELSE @,
                        !.resps[c[1]] = IF c[2] = 1 THEN Tail(@) ELSE @], TRUE)

\* Environment: a joiner starts (world.AddMember).
Join(n) ==
    /\ Quiet
    /\ n \in Joiners
    /\ procs[n].st = "absent"
    /\ Finish(StartMember(W, n), TRUE)

\* Environment: a live process crashes (world.Crash).
Crash(n) ==
    /\ Quiet
    /\ used.crashes < MaxCrashes
    /\ Live(n)
    /\ LET w1 == ClearAllWaits(CancelAll(W, n), n)
       IN Finish([w1 EXCEPT !.procs[n] = Fresh("down"), !.used.crashes = @ + 1], TRUE)

\* Environment: a live process leaves the group (world.Leave).
Leave(n) ==
    /\ Quiet
    /\ used.leaves < MaxLeaves
    /\ Live(n)
    /\ Finish([MemberLeave(W, n) EXCEPT !.used.leaves = @ + 1], TRUE)

-----------------------------------------------------------------------------
(* Init: the setup commands (world/check.go CheckWorld): the initial       *)
(* members start, then "stabilize" delivers in send order until quiet.     *)

RECURSIVE Stabilize(_)
Stabilize(w) ==
    IF w.log = <<>> THEN w
    ELSE Stabilize(DeliverConn([w EXCEPT !.log = Tail(@)], Head(w.log)))

InitW ==
    LET w0 == [used |-> [crashes |-> 0, leaves |-> 0, drops |-> 0],
               coord |-> EmptyCoord,
               procs |-> [n \in Names |-> Fresh("absent")],
               reqs |-> [n \in Names |-> <<>>],
               resps |-> [n \in Names |-> <<>>],
               timers |-> <<>>, sent |-> 0, log |-> <<>>]
    IN Stabilize(Fold(StartMember, w0, SortSet(InitialNames)))

Init ==
    LET w == InitW
    IN /\ used = w.used
       /\ coord = w.coord
       /\ procs = w.procs
       /\ reqs = w.reqs
       /\ resps = w.resps
       /\ timers = w.timers
       /\ rounds = 0

OwnNext == (\E c \in Conns : Deliver(c)) \/ Fire
EnvNext == (\E c \in Conns : Drop(c)) \/ (\E n \in Names : Join(n) \/ Crash(n) \/ Leave(n))
Next == OwnNext \/ EnvNext

\* Weak fairness of the protocol's own steps, none for the environment
\* (checker/liveness.go: fairness per message delivered and for fire).
Fairness == (\A c \in Conns : WF_vars(Deliver(c))) /\ WF_vars(Fire)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Laws (spec/laws.go; world.View)                                          *)

\* A member counts when the coordinator counts its member id (its node is
\* always the process's one address: no restarts).
Current(n) ==
    /\ procs[n].st \notin {"absent", "down"}
    /\ procs[n].id # 0
    /\ procs[n].id \in DOMAIN coord.members

CurrentNames == {n \in Names : Current(n)}

\* Every member subscribes to every topic, all of which exist.
Subscribed(n) == 1..NTopics

ExclusiveOwnership ==
    \A n, m \in CurrentNames : n # m => procs[n].owned \cap procs[m].owned = {}

SubscribedOnly == \A n \in CurrentNames : \A r \in procs[n].owned : TopicOf(r) \in Subscribed(n)

ExistingOnly == \A n \in CurrentNames : procs[n].owned \subseteq Res

BoundedRounds == rounds <= MaxRounds

TypeOK ==
    /\ \A n \in Names : procs[n].st \in {"absent", "down", "unjoined", "joining",
                                         "awaiting-sync", "stable", "left", "failed"}
    /\ coord.state \in {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable"}
    /\ coord.nextId < 10

\* Convergence (world.checkConverged): Coverage and the policy's balance
\* law (per topic for eager's range, global otherwise; with one
\* subscription for everybody both read: counts differ by at most one).
Coverage ==
    CurrentNames # {} =>
        \A r \in Res : Cardinality({n \in CurrentNames : r \in procs[n].owned}) = 1
TopicCount(n, t) == Cardinality({r \in procs[n].owned : TopicOf(r) = t})
Balanced ==
    IF Eager
    THEN \A n, m \in CurrentNames : \A t \in 1..NTopics : TopicCount(n, t) <= TopicCount(m, t) + 1
    ELSE \A n, m \in CurrentNames : Cardinality(procs[n].owned) <= Cardinality(procs[m].owned) + 1
Converged == Coverage /\ Balanced

\* Who owns what and who counts (sim.Owners).
Owners == [n \in Names |-> <<Current(n), procs[n].owned>>]

\* EventuallyConverged: environment actions are finitely many, so every
\* fair behaviour ends in converged states; Stability: and then ownership
\* stops moving.
EventuallyConverged == <>[]Converged
Stability == <>[][Owners' = Owners]_vars
=============================================================================
