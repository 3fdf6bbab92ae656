package world

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/spec"
)

// CheckOptions are the knobs of the closed world the model checker
// explores, the same for every family: the group's size and resources, the
// environment's budget and the protocol's switches. F is the family's
// fault-switch set. A family refuses the knobs it has no meaning for
// (Validate's caller says which).
type CheckOptions[F any] struct {
	// Members is how many members the world has: Members-Joins of them are
	// in the group at the start, settled; Joins more may join later.
	Members, Joins int
	// Topics and Partitions: the topics T, U, V, ... each with Partitions
	// partitions; every member subscribes to all of them.
	Topics, Partitions int
	// Connectors and Tasks, when Connectors is positive, replace the topics
	// by a Kafka Connect universe: the connectors T, U, V, ... each a
	// resource (T/connector) with Tasks tasks (T-0, T-1, ...); every member
	// subscribes to all of them. Topics and Partitions are then unused.
	// Only the families and protocols that run Connect's assignor take them
	// (classic deferred and incremental).
	Connectors, Tasks int
	// The environment's budget over a whole path.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	// AddPartitions bounds how often a topic gains a partition (families
	// whose coordinator takes metadata).
	AddPartitions int
	// Overruns bounds how often an application overruns a revocation it
	// has pending (an Overrun action: its member may be fenced by the
	// rebalance timeout while it still works, a zombie with work to
	// commit).
	Overruns int
	// Migrations bounds how often a process is bounced onto the other
	// group protocol (a Migrate action; the mixed family only).
	Migrations int
	// Records gives every partition a log of that many records that the
	// members' applications process and commit, and turns the delivery
	// laws on (World.Records); 0 leaves delivery out. RecordsOn, when not
	// empty, names the only partitions with records ("T-0").
	Records   int
	RecordsOn []string
	// DeliveryFaults are the delivery fault switches to turn on (they
	// need records).
	DeliveryFaults DeliveryFault
	// LeaderBounces bounds leader changes (the leader leaves and comes
	// back at once); negative means unbounded (families with a leader).
	LeaderBounces int
	// Faults are the fault switches on in the coordinator and every
	// member.
	Faults F
	// LeaderFailover is the Design II/III rule for a departed leader:
	// reassign-immediately (default) or delay-if-departed.
	LeaderFailover string
	// MaxDelay is the Design II/III scheduled rebalance delay (Connect's
	// scheduled.rebalance.max.delay.ms) in ms: 0 keeps the family's
	// checked default, a negative value disables scheduled delays (what
	// Connect's 0 means: KAFKA-15693). Families without the delay refuse
	// any other value.
	MaxDelay int
	// ClaimGeneration is the generation the classic cooperative members
	// report for their claims: joined ("" is the default, Kafka since
	// KIP-792) or assigned (the cooperative-sticky user data before it;
	// classic.ClaimGeneration).
	ClaimGeneration string
	// MaxRounds overrides the protocol's bounded-rounds law when positive.
	MaxRounds int
	// Semantics names the family's behaviour selectors to turn on, each
	// restoring Kafka's behaviour before a named fix ("before-kafka-19233";
	// see the family's SemanticsList). A family without selectors refuses
	// any.
	Semantics []string
	// MigrationPolicy is the mixed group's group.consumer.migration.policy
	// ("" for the mixed world's default); other families refuse one.
	MigrationPolicy string
	// EnvAnywhere lets members join, crash, leave, restart and change
	// subscription while messages are in flight too, where the family
	// otherwise lets them act only when the network is quiet
	// (CheckConfig.EnvWhenQuiet).
	EnvAnywhere bool
}

// Bound is one integer bound of a checked world: the name rebalance
// check's flag gives it, and where it lives in a CheckOptions.
type Bound struct {
	Name string
	P    *int
}

// Bounds lists o's integer bounds of the world's shape and the
// environment's budget, in rebalance check's flag order and by its flag
// names: members, joins, topics, partitions, connectors, tasks, crashes,
// restarts, leaves, resubscribes, drops, duplicates.
func (o *CheckOptions[F]) Bounds() []Bound {
	return []Bound{
		{"members", &o.Members}, {"joins", &o.Joins}, {"topics", &o.Topics}, {"partitions", &o.Partitions},
		{"connectors", &o.Connectors}, {"tasks", &o.Tasks}, {"crashes", &o.Crashes}, {"restarts", &o.Restarts},
		{"leaves", &o.Leaves}, {"resubscribes", &o.Resubscribes}, {"drops", &o.Drops}, {"duplicates", &o.Duplicates},
	}
}

// DefaultCheckOptions is the world rebalance check explores by default,
// for every family: three members, two of them settled in the group and
// one that joins; two topics of two partitions; one crash, one leave and
// one lost message.
func DefaultCheckOptions[F any]() CheckOptions[F] {
	return CheckOptions[F]{Members: 3, Joins: 1, Topics: 2, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
}

// Timing is a checked world's timing, in ms: short, so that timer phases
// repeat soon and the state space stays small, and in Kafka's proportions:
// heartbeats well inside the session timeout, the rebalance timeout longer
// than the session timeout. A family's setup writes its scenario lines
// with it.
type Timing struct {
	Heartbeat, Session, Rebalance int
}

// FaultsArg is the argument " faults=(a,b)" that turns faults on in the
// scenario lines of a checked world's setup, or "" when none is on.
func FaultsArg[F interface {
	comparable
	fmt.Stringer
}](faults F) string {
	var none F
	if faults == none {
		return ""
	}
	return " faults=(" + faults.String() + ")"
}

// MaxMembers is the most members a checked world may have: the checked
// worlds name their members A to S and their topics from T (TopicNames),
// one letter each, as the scenario files and the TLA+ configurations do.
// The names are labels only: the encoding renames identities by their
// type (canon.Encoder.Name), never a topic, and timers due at one instant
// fire members first, then the coordinator, wherever the members' names
// sort, so other names in the same order check alike (TestNamesAreFree,
// TestMemberNamesAreFree).
const MaxMembers = 19

// TopicNames are the checked worlds' topics, in order.
var TopicNames = []string{"T", "U", "V", "W", "X", "Y"}

// MemberName is the name of the i-th member (from 0) of a checked world.
func MemberName(i int) string { return string(rune('A' + i)) }

// Validate returns an error for options no family makes sense of: no
// members or more than MaxMembers, joins outside 0 to members, topics
// outside 1 to len(TopicNames), no partitions, connectors outside 0 to
// len(TopicNames), connectors without tasks or tasks without connectors,
// a negative budget or max-rounds. With connectors, topics and partitions
// are not judged (they are unused).
func (o CheckOptions[F]) Validate() error {
	switch {
	case o.Members < 1:
		return fmt.Errorf("members = %d: want at least 1", o.Members)
	case o.Members > MaxMembers:
		return fmt.Errorf("members = %d: at most %d (named A to S; topics are T to Y)", o.Members, MaxMembers)
	case o.Joins < 0 || o.Joins > o.Members:
		return fmt.Errorf("joins = %d: want 0 to members (%d)", o.Joins, o.Members)
	case o.Connectors < 0 || o.Connectors > len(TopicNames):
		return fmt.Errorf("connectors = %d: want 0 (a topic world) to %d", o.Connectors, len(TopicNames))
	case o.Connectors > 0 && o.Tasks < 1:
		return fmt.Errorf("tasks = %d: want at least 1 task per connector", o.Tasks)
	case o.Connectors == 0 && o.Tasks != 0:
		return fmt.Errorf("tasks = %d: tasks are per connector; give connectors too", o.Tasks)
	case o.Connectors == 0 && (o.Topics < 1 || o.Topics > len(TopicNames)):
		return fmt.Errorf("topics = %d: want 1 to %d", o.Topics, len(TopicNames))
	case o.Connectors == 0 && o.Partitions < 1:
		return fmt.Errorf("partitions = %d: want at least 1", o.Partitions)
	case o.MaxRounds < 0:
		return fmt.Errorf("max-rounds = %d: want 0 (the protocol's bound) or more", o.MaxRounds)
	}
	for _, b := range []struct {
		name string
		n    int
	}{{"crashes", o.Crashes}, {"restarts", o.Restarts}, {"leaves", o.Leaves}, {"resubscribes", o.Resubscribes}, {"drops", o.Drops}, {"duplicates", o.Duplicates}, {"add-partitions", o.AddPartitions}, {"records", o.Records}, {"overruns", o.Overruns}, {"migrations", o.Migrations}} {
		if b.n < 0 {
			return fmt.Errorf("%s = %d: want 0 or more", b.name, b.n)
		}
	}
	if len(o.RecordsOn) > 0 && o.Records == 0 {
		return fmt.Errorf("records-on %v: no records (want records > 0)", o.RecordsOn)
	}
	if o.DeliveryFaults != 0 && o.Records == 0 {
		return fmt.Errorf("fault %s: a delivery fault needs records (want records > 0)", o.DeliveryFaults)
	}
	universe := o.Universe()
	for _, name := range o.RecordsOn {
		r, err := spec.ParseResource(name)
		if err != nil {
			return fmt.Errorf("records-on %s: %v", name, err)
		}
		if !universe.Has(r) {
			return fmt.Errorf("records-on %s: no such partition in the world (topics %v)", name, universe.Names())
		}
	}
	return nil
}

// Config returns the CheckConfig the options give, but for the setup and
// joiners, which the family writes: the budget, the leader bounces, the
// environment acting only while quiet unless EnvAnywhere, maxRounds
// (replaced by MaxRounds when that is positive), the topic choices of a
// resubscription (the first topic, or all), and balance.
func (o CheckOptions[F]) Config(protocol string, maxRounds int, balance Balance) CheckConfig {
	cfg := CheckConfig{
		Protocol: protocol,
		Crashes:  o.Crashes, Restarts: o.Restarts, Leaves: o.Leaves, Resubscribes: o.Resubscribes,
		Drops: o.Drops, Duplicates: o.Duplicates, AddPartitions: o.AddPartitions, LeaderBounces: o.LeaderBounces, Overruns: o.Overruns, Migrations: o.Migrations,
		EnvWhenQuiet:   !o.EnvAnywhere,
		MaxRounds:      maxRounds,
		Balance:        balance,
		Records:        o.Records,
		RecordsOn:      o.RecordsOn,
		DeliveryFaults: o.DeliveryFaults,
	}
	if o.MaxRounds > 0 {
		cfg.MaxRounds = o.MaxRounds
	}
	if o.Resubscribes > 0 {
		topics := o.TopicNames()
		cfg.TopicChoices = [][]string{topics[:1], topics}
	}
	return cfg
}

// TopicNames are the names of the world's topics, or of its connectors
// when it has connectors: the first of TopicNames.
func (o CheckOptions[F]) TopicNames() []string {
	if o.Connectors > 0 {
		return TopicNames[:o.Connectors]
	}
	return TopicNames[:o.Topics]
}

// Universe is the world's resource universe: the topics with their
// partitions, or the connectors with their tasks (spec.Topics.AddConnector).
func (o CheckOptions[F]) Universe() spec.Topics {
	out := spec.Topics{}
	for _, n := range o.TopicNames() {
		if o.Connectors > 0 {
			out.AddConnector(n, int32(o.Tasks))
		} else {
			out[n] = int32(o.Partitions)
		}
	}
	return out
}

// Resources is how many resources the universe has: topics × partitions,
// or connectors × (1 + tasks).
func (o CheckOptions[F]) Resources() int {
	if o.Connectors > 0 {
		return o.Connectors * (1 + o.Tasks)
	}
	return o.Topics * o.Partitions
}

// DefaultTopics is the resource universe of the property tests' default
// environment: two topics, T with four partitions and U with two.
func DefaultTopics() spec.Topics { return spec.Topics{"T": 4, "U": 2} }

// DefaultMember is one member of the property tests' default environment.
type DefaultMember struct {
	Name, Instance string
	Topics         []string
}

// DefaultMembers are the property tests' members: A, B and D subscribe to
// T and U, C to T only; D is static (instance d).
func DefaultMembers() []DefaultMember {
	return []DefaultMember{
		{"A", "", []string{"T", "U"}},
		{"B", "", []string{"T", "U"}},
		{"C", "", []string{"T"}},
		{"D", "d", []string{"T", "U"}},
	}
}

// DefaultTopicChoices are the subscriptions a member of the default
// environment may switch to.
func DefaultTopicChoices() [][]string { return [][]string{{"T"}, {"T", "U"}, {"U"}} }
