package kafkaserver

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
)

// TopicSource is where the server learns topic ids and partition counts:
// the next-gen protocol names topics by id on the wire, and its
// coordinator assigns from the partition counts. Implementations must be
// safe for concurrent use.
type TopicSource interface {
	// TopicByName returns the topic's id and partition count, ok=false
	// when it does not exist.
	TopicByName(name string) (id [16]byte, partitions int32, ok bool)
	// TopicByID returns the topic's name and partition count, ok=false
	// when no topic has that id.
	TopicByID(id [16]byte) (name string, partitions int32, ok bool)
}

// KfakeTopics returns the topics of a kfake cluster as a TopicSource.
func KfakeTopics(c *kfake.Cluster) TopicSource { return kfakeTopics{c} }

type kfakeTopics struct{ c *kfake.Cluster }

func (k kfakeTopics) TopicByName(name string) ([16]byte, int32, bool) {
	ti := k.c.TopicInfo(name)
	if ti == nil {
		return [16]byte{}, 0, false
	}
	return ti.TopicID, int32(len(k.c.PartitionInfos(name))), true
}

func (k kfakeTopics) TopicByID(id [16]byte) (string, int32, bool) {
	ti := k.c.TopicIDInfo(id)
	if ti == nil {
		return "", 0, false
	}
	return ti.Topic, int32(len(k.c.PartitionInfos(ti.Topic))), true
}

// topicCache remembers what a TopicSource said, including that a topic
// does not exist, until Invalidate: the source may be slow (kfake answers
// on its own goroutine) and heartbeats ask for the same topics all the
// time. version counts invalidations, so a group knows when to refresh its
// coordinator's metadata image.
type topicCache struct {
	src TopicSource

	mu      sync.Mutex
	version uint64
	byName  map[string]topicInfo
	byID    map[[16]byte]topicInfo
}

type topicInfo struct {
	name       string
	id         [16]byte
	partitions int32
	exists     bool
}

func newTopicCache(src TopicSource) *topicCache {
	return &topicCache{src: src, version: 1, byName: map[string]topicInfo{}, byID: map[[16]byte]topicInfo{}}
}

// invalidate forgets everything: a topic was created, deleted or grew.
func (c *topicCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version++
	clear(c.byName)
	clear(c.byID)
}

// current returns the cache version.
func (c *topicCache) current() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

func (c *topicCache) name(name string) topicInfo {
	c.mu.Lock()
	ti, ok := c.byName[name]
	ver := c.version
	c.mu.Unlock()
	if ok {
		return ti
	}
	id, n, exists := c.src.TopicByName(name)
	ti = topicInfo{name: name, id: id, partitions: n, exists: exists}
	c.store(ti, ver)
	return ti
}

func (c *topicCache) id(id [16]byte) topicInfo {
	c.mu.Lock()
	ti, ok := c.byID[id]
	ver := c.version
	c.mu.Unlock()
	if ok {
		return ti
	}
	name, n, exists := c.src.TopicByID(id)
	ti = topicInfo{name: name, id: id, partitions: n, exists: exists}
	c.store(ti, ver)
	return ti
}

// store caches ti unless the cache was invalidated since the lookup that
// produced it began (version ver): that answer may be stale.
func (c *topicCache) store(ti topicInfo, ver uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ver != c.version {
		return
	}
	if ti.exists || ti.name != "" {
		c.byName[ti.name] = ti
	}
	if ti.exists {
		c.byID[ti.id] = ti
	}
}

// TopicID and TopicName make the cache a kwire.TopicIDs.
func (c *topicCache) TopicID(name string) ([16]byte, bool) {
	ti := c.name(name)
	return ti.id, ti.exists
}

// TopicName returns the name of the topic with id.
func (c *topicCache) TopicName(id [16]byte) (string, bool) {
	ti := c.id(id)
	return ti.name, ti.exists
}
