package kraftseed

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// SourceOptions choose what is read from the source.
type SourceOptions struct {
	Principals *regexp.Regexp // only SCRAM users whose principal (User:alice) matches; nil: every one
	Tokens     bool           // also the delegation tokens
	TopicIDs   bool           // also the topics, with their ids
	Topics     *regexp.Regexp // with TopicIDs: only topics whose name matches; nil: every one
	Now        time.Time      // what "expired" is measured against
}

// Result is what a run did (the command's -o json).
type Result struct {
	DryRun    bool     `json:"dry_run"`
	Source    string   `json:"source"`
	ClusterID string   `json:"source_cluster_id,omitempty"`
	Found     int      `json:"source_credentials"`
	Skipped   []string `json:"skipped,omitempty"` // source credentials that could not be read (znode and reason)
	Tokens    int      `json:"source_delegation_tokens,omitempty"`
	Expired   []string `json:"expired_tokens,omitempty"` // token ids not seeded: expired, the controller would drop them
	Topics    int      `json:"source_topics,omitempty"`
	NoTopicID []string `json:"topics_without_id,omitempty"`       // left to plan/apply (new ids)
	Pending   []string `json:"topics_pending_deletion,omitempty"` // being deleted on the source: not seeded
	BrokerIDs []int32  `json:"broker_ids_needed,omitempty"`       // the brokers the seeded partitions name
	Targets   []Target `json:"targets"`
}

// Seed is what the source gives the checkpoints. Its credentials hold
// keys: it never goes to output.
type Seed struct {
	Creds  []kraftcheckpoint.ScramCredential
	Tokens []kraftcheckpoint.DelegationToken
	Topics []Topic
}

// Topic is a source topic to create with its id: its TopicRecord and a
// PartitionRecord per partition.
type Topic struct {
	Topic      kraftcheckpoint.Topic
	Partitions []kraftcheckpoint.Partition
}

func match(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// ReadSource reads the source's SCRAM credentials with their keys (and the
// tokens and topics o asks for) from conn, a ZooKeeper or a tree read from
// its files, named address in res.Source. What cannot be read is named in
// res.Skipped; an error is returned only when nothing can be relied on.
func ReadSource(ctx context.Context, conn zkread.Source, address string, o SourceOptions, res *Result) (Seed, error) {
	res.Source = address
	if d, _, err := conn.Get("/cluster/id"); err == nil {
		res.ClusterID, _ = zkread.ParseClusterID(d)
	}
	users, findings, err := zkread.ReadScramKeys(conn)
	if err != nil {
		return Seed{}, err
	}
	for _, fd := range findings {
		res.Skipped = append(res.Skipped, fd.Resource+": "+fd.Message)
	}
	var seed Seed
	for _, u := range users {
		if !match(o.Principals, "User:"+u.User) {
			continue
		}
		m, _ := kraftcheckpoint.ParseMechanism(u.Mechanism)
		c := kraftcheckpoint.ScramCredential{Name: u.User, Mechanism: m, Salt: u.Credential.Salt, StoredKey: u.Credential.StoredKey,
			ServerKey: u.Credential.ServerKey, Iterations: u.Credential.Iterations}
		if err := c.Validate(); err != nil {
			res.Skipped = append(res.Skipped, u.Path+": "+err.Error())
			continue
		}
		seed.Creds = append(seed.Creds, c)
	}
	res.Found = len(seed.Creds)
	if o.Tokens {
		if seed.Tokens, err = readTokens(conn, res, o.Now); err != nil {
			return Seed{}, err
		}
	}
	if o.TopicIDs {
		if seed.Topics, err = readTopics(ctx, conn, o.Topics, res); err != nil {
			return Seed{}, err
		}
	}
	return seed, nil
}

// readTopics reads the source's topics (zkread, as plan does) and turns
// each one with a topic id into records: every partition with the source's
// replicas (a reassignment's target set: replicas minus removing), the
// first as leader, all in the ISR, epochs 0. Internal topics are left out,
// and so are topics pending deletion; topics without an id (IBP before
// 2.8) are named and left to plan/apply.
func readTopics(ctx context.Context, conn zkread.Source, filter *regexp.Regexp, res *Result) ([]Topic, error) {
	s, err := zkread.Read(ctx, conn, zkread.Options{Address: res.Source})
	if err != nil {
		return nil, err
	}
	brokers := map[int32]bool{}
	var out []Topic
	for _, t := range s.Topics {
		if t.Internal || catalogue.IsInternalTopic(t.Name) || !match(filter, t.Name) {
			continue
		}
		if slices.Contains(s.PendingDeletes, t.Name) {
			res.Pending = append(res.Pending, t.Name)
			continue
		}
		if t.ID == "" {
			res.NoTopicID = append(res.NoTopicID, t.Name)
			continue
		}
		id, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(t.ID, "="))
		if err != nil || len(id) != 16 {
			res.Skipped = append(res.Skipped, fmt.Sprintf("topic %s: topic id %q is not a base64url Uuid", t.Name, t.ID))
			continue
		}
		st := Topic{Topic: kraftcheckpoint.Topic{Name: t.Name}}
		copy(st.Topic.ID[:], id)
		for _, p := range t.Partitions {
			var replicas []int32
			for _, r := range p.Replicas {
				if !slices.Contains(p.Removing, r) {
					replicas = append(replicas, r)
					brokers[r] = true
				}
			}
			if len(replicas) == 0 {
				res.Skipped = append(res.Skipped, fmt.Sprintf("topic %s partition %d: no replicas", t.Name, p.ID))
				st.Partitions = nil
				break
			}
			st.Partitions = append(st.Partitions, kraftcheckpoint.Partition{Partition: p.ID, TopicID: st.Topic.ID, Replicas: replicas,
				ISR: slices.Clone(replicas), Removing: []int32{}, Adding: []int32{}, Leader: replicas[0]})
		}
		if len(st.Partitions) > 0 {
			out = append(out, st)
		}
	}
	for b := range brokers {
		res.BrokerIDs = append(res.BrokerIDs, b)
	}
	slices.Sort(res.BrokerIDs)
	res.Topics = len(out)
	return out, nil
}

// readTokens reads /delegation_token/tokens: each token's metadata (its
// HMAC is never stored; Kafka derives it from the id and the secret key).
// Expired tokens are left out and named; unreadable ones are skipped and
// named.
func readTokens(conn zkread.Source, res *Result, now time.Time) ([]kraftcheckpoint.DelegationToken, error) {
	ids, err := conn.Children("/delegation_token/tokens")
	if errors.Is(err, zktree.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list /delegation_token/tokens: %v", err)
	}
	slices.Sort(ids)
	var out []kraftcheckpoint.DelegationToken
	for _, id := range ids {
		p := "/delegation_token/tokens/" + id
		data, _, err := conn.Get(p)
		if errors.Is(err, zktree.ErrNoNode) {
			continue
		}
		if err != nil {
			res.Skipped = append(res.Skipped, p+": "+err.Error())
			continue
		}
		t, err := zkread.ParseDelegationToken(id, data)
		if err != nil {
			res.Skipped = append(res.Skipped, p+": "+strings.TrimPrefix(err.Error(), "zkread: "))
			continue
		}
		if t.ExpiryTimestamp < now.UnixMilli() || t.MaxTimestamp < now.UnixMilli() {
			res.Expired = append(res.Expired, t.TokenID)
			continue
		}
		out = append(out, kraftcheckpoint.DelegationToken{Owner: t.Owner, Requester: t.Requester, Renewers: t.Renewers,
			IssueTimestamp: t.IssueTimestamp, MaxTimestamp: t.MaxTimestamp, ExpirationTime: t.ExpiryTimestamp, TokenID: t.TokenID})
	}
	res.Tokens = len(out)
	return out, nil
}
