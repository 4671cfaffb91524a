package zkgen

import (
	"fmt"
	"strconv"
)

// tokenZNode is /delegation_token/tokens/<id>, version 3 (KIP-373): the
// principals are "Type:name", Sanitizer-encoded.
type tokenZNode struct {
	Version         int      `json:"version"`
	Owner           string   `json:"owner"`
	TokenRequester  string   `json:"tokenRequester"`
	Renewers        []string `json:"renewers"`
	IssueTimestamp  int64    `json:"issueTimestamp"`
	MaxTimestamp    int64    `json:"maxTimestamp"`
	ExpiryTimestamp int64    `json:"expiryTimestamp"`
	TokenID         string   `json:"tokenId"`
}

// extras writes the small queues and stores a live cluster also has: a few
// delegation tokens (one per ten SCRAM users, at most three) and a few
// config change notifications. The change nodes are created with explicit
// names, not with ZooKeeper's sequential flag, so the tree stays a pure
// function of the seed.
func (g *gen) extras(emit func([]Node) error) error {
	rng := g.rng(6)
	if n := min(3, len(g.userNames)/10); n > 0 {
		nodes := []Node{{Path: "/delegation_token"}, {Path: "/delegation_token/tokens"}, {Path: "/delegation_token/token_changes"}}
		for range n {
			owner := "User:" + g.userNames[rng.IntN(len(g.userNames))]
			issue := g.now - rng.Int64N(86400000)
			t := tokenZNode{Version: 3, Owner: Sanitize(owner), TokenRequester: Sanitize(owner),
				Renewers:       []string{Sanitize("User:" + g.userNames[rng.IntN(len(g.userNames))])},
				IssueTimestamp: issue, MaxTimestamp: issue + 7*86400000, ExpiryTimestamp: issue + 86400000, TokenID: newUUID(rng)}
			nodes = append(nodes, Node{"/delegation_token/tokens/" + t.TokenID, mustJSON(t)})
			g.sum.DelegationTokens++
		}
		if err := emit(nodes); err != nil {
			return err
		}
	}
	var changes []Node
	add := func(entity string) {
		p := fmt.Sprintf("/config/changes/config_change_%010d", len(changes)+1)
		changes = append(changes, Node{p, mustJSON(struct {
			Version    int    `json:"version"`
			EntityPath string `json:"entity_path"`
		}{2, entity})})
	}
	if len(g.topicNames) > 0 {
		add("topics/" + g.topicNames[rng.IntN(len(g.topicNames))])
	}
	add("brokers/" + Default)
	if len(g.userNames) > 0 {
		add("users/" + Sanitize(g.userNames[rng.IntN(len(g.userNames))]))
	}
	add("brokers/" + strconv.Itoa(1+rng.IntN(g.cfg.Brokers)))
	g.sum.ConfigChanges = len(changes)
	return emit(changes)
}
