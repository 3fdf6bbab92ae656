package kgotest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalance-ref/rebalance/spec"
)

// Protocol says how a kgo consumer takes part in its group.
type Protocol int

// The protocols a Member can use.
const (
	// Eager: the classic protocol with kgo's range balancer (stop the
	// world: everything is revoked on every rebalance).
	Eager Protocol = iota + 1
	// Cooperative: the classic protocol with kgo's cooperative-sticky
	// balancer (KIP-429).
	Cooperative
	// NextGen: the KIP-848 protocol (kgo.ServerSideBalancer); the
	// coordinator's uniform assignor.
	NextGen
)

// String names the protocol.
func (p Protocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Cooperative:
		return "cooperative"
	case NextGen:
		return "nextgen"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// MemberConfig configures one consumer process.
type MemberConfig struct {
	// Name is the process's stable name in the history.
	Name string
	// Seeds are the bootstrap addresses.
	Seeds []string
	Group string
	// Topics is the subscription.
	Topics   []string
	Protocol Protocol
	// InstanceID makes the member static (KIP-345); "" for dynamic.
	InstanceID string
	// SessionTimeout, HeartbeatInterval and RebalanceTimeout are the
	// classic protocol's client settings (the next-gen coordinator sets
	// its own); zero leaves kgo's default.
	SessionTimeout, HeartbeatInterval, RebalanceTimeout time.Duration
	// RevokeWork is how long a revocation callback works after committing
	// (a slow application): the process owns what it revokes until the
	// callback returns.
	RevokeWork time.Duration
	// Opts are extra kgo options.
	Opts []kgo.Opt
}

// Member is one running kgo consumer whose callbacks the Recorder
// records. It polls in a goroutine of its own and commits what it polled
// in every revocation callback.
type Member struct {
	Name   string
	Client *kgo.Client

	rec    *Recorder
	inc    *incarnation
	dialer *cutDialer
	polled chan struct{}
	done   chan struct{}
	// records counts the records polled (for tests that want proof of
	// consumption).
	mu      sync.Mutex
	records int
}

// Start starts a member and its poll loop. It returns when the client is
// built; joining the group happens in the background.
func Start(rec *Recorder, cfg MemberConfig) (*Member, error) {
	if cfg.Name == "" || cfg.Group == "" || len(cfg.Topics) == 0 || len(cfg.Seeds) == 0 {
		return nil, errors.New("kgotest: a member needs a name, seeds, a group and topics")
	}
	m := &Member{Name: cfg.Name, rec: rec, dialer: &cutDialer{}, polled: make(chan struct{}, 1), done: make(chan struct{})}
	m.inc = rec.start(cfg.Name, cfg.Topics)
	record := func(kind spec.ObservationKind, work func(context.Context, *kgo.Client)) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
			call := time.Now()
			member, gen := cl.GroupMetadata()
			if work != nil {
				work(ctx, cl)
			}
			rec.callback(m.inc, kind, member, gen, toSet(ps), call, time.Now())
		}
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Seeds...),
		kgo.ClientID(cfg.Name),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.DisableAutoCommit(),
		kgo.Dialer(m.dialer.dial),
		kgo.OnPartitionsAssigned(record(spec.Assigned, nil)),
		kgo.OnPartitionsRevoked(record(spec.Revoked, func(ctx context.Context, cl *kgo.Client) {
			// Commit what was polled, then finish the work: the process
			// owns what it revokes until it returns.
			_ = cl.CommitUncommittedOffsets(ctx)
			if cfg.RevokeWork > 0 {
				time.Sleep(cfg.RevokeWork)
			}
		})),
		kgo.OnPartitionsLost(record(spec.Lost, nil)),
	}
	switch cfg.Protocol {
	case Eager:
		opts = append(opts, kgo.Balancers(kgo.RangeBalancer()))
	case Cooperative:
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
	case NextGen:
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.ServerSideBalancer())
	default:
		return nil, fmt.Errorf("kgotest: unknown protocol %d", cfg.Protocol)
	}
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout))
	}
	if cfg.HeartbeatInterval > 0 {
		opts = append(opts, kgo.HeartbeatInterval(cfg.HeartbeatInterval))
	}
	if cfg.RebalanceTimeout > 0 {
		opts = append(opts, kgo.RebalanceTimeout(cfg.RebalanceTimeout))
	}
	opts = append(opts, cfg.Opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		rec.stop(m.inc)
		return nil, err
	}
	m.Client = cl
	go m.poll()
	return m, nil
}

func (m *Member) poll() {
	defer close(m.done)
	for {
		fs := m.Client.PollFetches(context.Background())
		if fs.IsClientClosed() {
			return
		}
		n := fs.NumRecords()
		m.mu.Lock()
		m.records += n
		m.mu.Unlock()
		select {
		case m.polled <- struct{}{}:
		default:
		}
	}
}

// Records returns how many records the member has polled.
func (m *Member) Records() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.records
}

// Leave closes the member gracefully: kgo revokes everything (committing
// in the callback) and leaves the group (a static classic member does not
// send LeaveGroup; a static next-gen member leaves with epoch -2, KIP-848).
func (m *Member) Leave() {
	m.Client.Close()
	<-m.done
	m.rec.stop(m.inc)
}

// Crash kills the member without leaving: its connections are cut and no
// new ones can be made, so the coordinator hears nothing more and removes
// it only when its session expires. The recorder notes the death now and
// ignores anything the dead client still does; the client itself is
// closed in the background.
func (m *Member) Crash() {
	m.rec.crash(m.inc, time.Now())
	m.dialer.cut()
	go func() {
		m.Client.Close()
		<-m.done
	}()
}

// CutConnections closes every connection the member has open, as a
// network fault does; it may connect again (kgo retries).
func (m *Member) CutConnections() { m.dialer.drop() }

// toSet turns a kgo partition map into a resource set.
func toSet(ps map[string][]int32) spec.Set {
	var rs []spec.Resource
	for t, parts := range ps {
		for _, p := range parts {
			rs = append(rs, spec.TP(t, p))
		}
	}
	return spec.NewSet(rs...)
}

// cutDialer dials normally until cut; then it closes every connection it
// made and refuses new ones.
type cutDialer struct {
	mu    sync.Mutex
	dead  bool
	conns []net.Conn
}

func (d *cutDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	d.mu.Lock()
	dead := d.dead
	d.mu.Unlock()
	if dead {
		return nil, errors.New("kgotest: process crashed")
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		c.Close()
		return nil, errors.New("kgotest: process crashed")
	}
	d.conns = append(d.conns, c)
	return c, nil
}

func (d *cutDialer) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = slices.Delete(d.conns, 0, len(d.conns))
}

// drop closes every connection made so far; new ones may be made.
func (d *cutDialer) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = slices.Delete(d.conns, 0, len(d.conns))
}
