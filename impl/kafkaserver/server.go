// Package kafkaserver answers Kafka's group APIs with the reference
// coordinators: every group is a driver of package impl (a classic group
// or a KIP-848 consumer group), requests and responses are franz-go kmsg
// values translated by impl/kwire, and committed offsets live with their
// group. It is the group coordinator half of a Kafka broker; the other
// half (topics, produce, fetch, metadata) is a kfake cluster, reached
// either through Install (kfake's control hooks) or through a Front (a
// listener of our own that forwards everything else to kfake).
package kafkaserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// Client is what the transport knows of a request's sender.
type Client = kwire.Client

// Config configures a Server.
type Config struct {
	// Classic is the configuration every classic group's coordinator
	// starts from; GroupID and MemberIDPrefix are set per group and
	// server.
	Classic classic.CoordinatorConfig
	// NextGen is the configuration every consumer group's coordinator
	// starts from; GroupID and Topics are set per group.
	NextGen nextgen.CoordinatorConfig
	// Topics is where topic ids and partition counts come from. Required.
	Topics TopicSource
	// Clock is the drivers' time; nil means impl.SystemClock.
	Clock impl.Clock
	// Observer, when set, is told every membership change of every group.
	Observer impl.Observer
	// MemberIDPrefix goes into every generated classic member id (see
	// classic.CoordinatorConfig.MemberIDPrefix); "" means a random one, so
	// that a restarted server never hands out an id of its previous life.
	MemberIDPrefix string
}

// Server answers the group APIs. Every method is safe for concurrent use.
type Server struct {
	cfg    Config
	topics *topicCache

	mu     sync.Mutex
	groups map[string]*group
	closed bool
}

// group is one group id: exactly one of classic and nextgen is set.
type group struct {
	id string

	// mu serializes what the server does around the driver: family
	// changes and the next-gen metadata image.
	mu      sync.Mutex
	classic *impl.ClassicGroup
	nextgen *impl.NextGenGroup
	// For a consumer group: the topic names its members asked for, the
	// cache version its coordinator's metadata image was built from, and
	// the clients behind its member ids (for ConsumerGroupDescribe).
	subscribed   map[string]bool
	imageVersion uint64
	image        spec.Topics
	clients      map[spec.MemberID]Client
}

// NewServer returns a server with no groups. It returns an error for a
// missing TopicSource or a template configuration a coordinator refuses.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Topics == nil {
		return nil, errors.New("kafkaserver: Config.Topics is required")
	}
	if cfg.Clock == nil {
		cfg.Clock = impl.SystemClock()
	}
	if cfg.MemberIDPrefix == "" {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		cfg.MemberIDPrefix = hex.EncodeToString(b[:]) + "_"
	}
	probeC := cfg.Classic
	probeC.GroupID, probeC.MemberIDPrefix = "probe", cfg.MemberIDPrefix
	if _, err := classic.NewCoordinator(probeC); err != nil {
		return nil, err
	}
	probeN := cfg.NextGen
	probeN.GroupID = "probe"
	if _, err := nextgen.NewCoordinator(probeN); err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, topics: newTopicCache(cfg.Topics), groups: map[string]*group{}}, nil
}

// handled lists the API keys the server answers.
var handled = map[kmsg.Key]bool{
	kmsg.JoinGroup: true, kmsg.SyncGroup: true, kmsg.Heartbeat: true, kmsg.LeaveGroup: true,
	kmsg.OffsetCommit: true, kmsg.OffsetFetch: true, kmsg.TxnOffsetCommit: true,
	kmsg.DescribeGroups: true, kmsg.ListGroups: true, kmsg.DeleteGroups: true,
	kmsg.ConsumerGroupHeartbeat: true, kmsg.ConsumerGroupDescribe: true,
}

// HandledKeys returns the API keys the server answers, sorted.
func HandledKeys() []int16 {
	var out []int16
	for k := range handled {
		out = append(out, int16(k))
	}
	slices.Sort(out)
	return out
}

// Handles reports whether the server answers requests with API key key;
// the transport forwards every other request to the rest of the broker.
func (s *Server) Handles(key int16) bool { return handled[kmsg.Key(key)] }

// TopicsChanged tells the server that a topic was created, deleted or
// grew: consumer groups refresh their coordinators' metadata at their
// next heartbeat.
func (s *Server) TopicsChanged() { s.topics.invalidate() }

// ErrNotHandled is returned for a request the server does not answer.
var ErrNotHandled = errors.New("kafkaserver: not a group API")

// Reply is the answer to a request, now or later.
type Reply struct {
	ready bool
	wait  func(context.Context) (kmsg.Response, error)
}

// Ready reports whether the answer is already there (Wait returns at
// once). It is false only for a JoinGroup or SyncGroup the coordinator
// parked.
func (r *Reply) Ready() bool { return r.ready }

// Wait returns the answer. An error means the request cannot be answered
// (the server closed, ctx ended): the transport closes the connection, as
// a broker does.
func (r *Reply) Wait(ctx context.Context) (kmsg.Response, error) { return r.wait(ctx) }

func now(resp kmsg.Response, err error) (*Reply, error) {
	if err != nil {
		return nil, err
	}
	return &Reply{ready: true, wait: func(context.Context) (kmsg.Response, error) { return resp, nil }}, nil
}

// Handle answers req from client; see Serve.
func (s *Server) Handle(ctx context.Context, client Client, req kmsg.Request) (kmsg.Response, error) {
	r, err := s.Serve(ctx, client, req)
	if err != nil {
		return nil, err
	}
	return r.Wait(ctx)
}

// Serve takes req from client and returns its reply, which is ready except
// for a parked JoinGroup or SyncGroup. Protocol rejections are responses
// carrying Kafka's error codes; an error means the request cannot be
// answered at all (ErrNotHandled, a closed server, or a translation
// failure that leaves nothing to answer with), and the transport then
// closes the connection.
func (s *Server) Serve(ctx context.Context, client Client, req kmsg.Request) (*Reply, error) {
	if req == nil {
		return nil, errors.New("kafkaserver: nil request")
	}
	switch r := req.(type) {
	case *kmsg.JoinGroupRequest:
		return s.joinGroup(ctx, client, r)
	case *kmsg.SyncGroupRequest:
		return s.syncGroup(ctx, r)
	case *kmsg.HeartbeatRequest:
		return now(s.heartbeat(ctx, r))
	case *kmsg.LeaveGroupRequest:
		return now(s.leaveGroup(ctx, r))
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return now(s.consumerHeartbeat(ctx, client, r))
	case *kmsg.OffsetCommitRequest:
		return now(s.offsetCommit(ctx, r))
	case *kmsg.OffsetFetchRequest:
		return now(s.offsetFetch(ctx, r))
	case *kmsg.TxnOffsetCommitRequest:
		return now(txnOffsetCommit(r), nil)
	case *kmsg.DescribeGroupsRequest:
		return now(s.describeGroups(ctx, r))
	case *kmsg.ConsumerGroupDescribeRequest:
		return now(s.consumerGroupDescribe(ctx, r))
	case *kmsg.ListGroupsRequest:
		return now(s.listGroups(ctx, r))
	case *kmsg.DeleteGroupsRequest:
		return now(s.deleteGroups(ctx, r))
	}
	return nil, fmt.Errorf("%w: %s", ErrNotHandled, kmsg.NameForKey(req.Key()))
}

// Close stops every group's driver; later requests fail.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, g := range s.groups {
		g.close()
	}
}

func (g *group) close() {
	if g.classic != nil {
		g.classic.Close()
	}
	if g.nextgen != nil {
		g.nextgen.Close()
	}
}

var errClosed = errors.New("kafkaserver: server closed")

// lookup returns the group with id, or nil.
func (s *Server) lookup(id string) (*group, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	return s.groups[id], nil
}

// lookupOrCreate returns the group with id, creating an empty one (with no
// driver yet) when there is none.
func (s *Server) lookupOrCreate(id string) (*group, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	g := s.groups[id]
	if g == nil {
		g = &group{id: id}
		s.groups[id] = g
	}
	return g, nil
}

// Groups returns the ids of the groups the server knows, sorted.
func (s *Server) Groups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.groups))
}

// Classic returns the driver of a classic group, nil if id is not one.
func (s *Server) Classic(id string) *impl.ClassicGroup {
	g, _ := s.lookup(id)
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.classic
}

// NextGen returns the driver of a consumer group, nil if id is not one.
func (s *Server) NextGen(id string) *impl.NextGenGroup {
	g, _ := s.lookup(id)
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.nextgen
}

// classicEmpty reports whether a classic group has no members and no
// pending ids (Kafka's ClassicGroup.isEmpty for conversion).
func classicEmpty(ctx context.Context, c *impl.ClassicGroup) (bool, error) {
	d, err := c.Describe(ctx)
	return len(d.Members) == 0 && len(d.Pending) == 0, err
}

// nextgenEmpty reports whether a consumer group has no members (static
// members parked at -2 count).
func nextgenEmpty(ctx context.Context, n *impl.NextGenGroup) (bool, error) {
	empty := false
	err := n.Inspect(ctx, func(c *nextgen.Coordinator) { empty = len(c.Members()) == 0 })
	return empty, err
}

// takeOver stops g's driver, if it has one, so that a driver of the
// other family can take its place, and returns its offsets (Kafka keeps a
// group's offsets when an empty group changes type). A group with members
// is not taken over (ok is false). g.mu must be held.
func takeOver(ctx context.Context, g *group) (offsets impl.Offsets, ok bool, err error) {
	empty := true
	switch {
	case g.classic != nil:
		if empty, err = classicEmpty(ctx, g.classic); err == nil && empty {
			offsets, err = g.classic.Offsets(ctx, nil)
		}
	case g.nextgen != nil:
		if empty, err = nextgenEmpty(ctx, g.nextgen); err == nil && empty {
			offsets, err = g.nextgen.Offsets(ctx, nil)
		}
	}
	if err != nil || !empty {
		return nil, false, err
	}
	g.close()
	g.classic, g.nextgen = nil, nil
	return offsets, true, nil
}

// asClassic returns g's classic driver, creating it (or converting an
// empty consumer group, keeping its offsets, as Kafka's
// maybeDeleteEmptyConsumerGroup path does) when create is true. The code
// is NONE or why the request cannot reach a classic group:
// INCONSISTENT_GROUP_PROTOCOL for a non-empty consumer group (the online
// migration of mixed groups is not modelled), UNKNOWN_MEMBER_ID when
// create is false and there is no classic group. g.mu must be held.
func (s *Server) asClassic(ctx context.Context, g *group, create bool) (*impl.ClassicGroup, spec.ErrorCode, error) {
	if g.classic != nil {
		return g.classic, spec.None, nil
	}
	if !create {
		return nil, spec.UnknownMemberID, nil
	}
	offsets, ok, err := takeOver(ctx, g)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, spec.InconsistentGroupProtocol, nil
	}
	cfg := s.cfg.Classic
	cfg.GroupID, cfg.MemberIDPrefix = g.id, s.cfg.MemberIDPrefix
	c, err := impl.NewClassicGroup(impl.ClassicConfig{Coordinator: cfg, Clock: s.cfg.Clock, Observer: s.cfg.Observer, Offsets: offsets})
	if err != nil {
		return nil, 0, err
	}
	g.classic = c
	return c, spec.None, nil
}

// asNextGen returns g's consumer-group driver, creating it (or converting
// an empty classic group, keeping its offsets) when there is none. The
// code is GROUP_ID_NOT_FOUND for a non-empty classic group ("Group X is
// not a consumer group."). g.mu must be held.
func (s *Server) asNextGen(ctx context.Context, g *group) (*impl.NextGenGroup, spec.ErrorCode, error) {
	if g.nextgen != nil {
		return g.nextgen, spec.None, nil
	}
	offsets, ok, err := takeOver(ctx, g)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, spec.GroupIDNotFound, nil
	}
	cfg := s.cfg.NextGen
	cfg.GroupID = g.id
	cfg.Topics = spec.Topics{}
	n, err := impl.NewNextGenGroup(impl.NextGenConfig{Coordinator: cfg, Clock: s.cfg.Clock, Observer: s.cfg.Observer, Offsets: offsets})
	if err != nil {
		return nil, 0, err
	}
	g.nextgen = n
	g.subscribed, g.clients, g.image, g.imageVersion = map[string]bool{}, map[spec.MemberID]Client{}, spec.Topics{}, 0
	return n, spec.None, nil
}
