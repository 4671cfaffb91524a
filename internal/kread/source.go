package kread

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// SourceFindings names, per item, what a snapshot read through the admin
// protocol lacks compared with a ZooKeeper read of the same cluster: the
// SCRAM keys of each user, the value of each sensitive config, and for a
// ZooKeeper-mode cluster (no finalized metadata.version) the pending topic
// deletions and the configs of brokers that are not running. It does no I/O.
func SourceFindings(s *snapshot.Snapshot) []snapshot.Finding {
	var out []snapshot.Finding
	for _, u := range s.ScramUsers {
		var mechs []string
		for _, c := range u.Credentials {
			mechs = append(mechs, fmt.Sprintf("%s (%d iterations)", c.Mechanism, c.Iterations))
		}
		out = append(out, snapshot.Finding{ID: catalogue.IDKReadScramKeys, Severity: snapshot.SeverityWarning, Resource: "scram-user User:" + u.Name,
			Message: "the admin protocol gives " + strings.Join(mechs, ", ") + " only, never the salted keys, so the credentials cannot be copied",
			Fix:     "give the password with --scram-credentials, or read the source from ZooKeeper (--zookeeper) and bootstrap a fresh target with its keys"})
	}
	sensitive := func(resource string, cs []snapshot.Config) {
		for _, c := range cs {
			if c.Sensitive && (c.Secret == nil || !c.Secret.Known()) {
				out = append(out, snapshot.Finding{ID: catalogue.IDKReadSensitiveConfig, Severity: snapshot.SeverityWarning, Resource: resource + " " + c.Key,
					Message: "Kafka never returns the value of a sensitive config through the admin protocol; it is held by reference and cannot be copied",
					Fix:     "set it on the target by hand, or read the source from ZooKeeper (--zookeeper) with --password-encoder-secret-file to carry it"})
			}
		}
	}
	for _, bc := range s.BrokerConfigs {
		b := bc.Broker
		if b == "" {
			b = "<default>"
		}
		sensitive("broker "+b, bc.Configs)
	}
	for _, t := range s.Topics {
		sensitive("topic "+t.Name, t.Configs)
	}
	if zooKeeperMode(s) {
		out = append(out, snapshot.Finding{ID: catalogue.IDKReadZooKeeperMode, Severity: snapshot.SeverityInfo, Resource: "source " + s.Address,
			Message: "the cluster runs in ZooKeeper mode: topics pending deletion (/admin/delete_topics) and the dynamic configs of brokers that are not running are not visible through the admin protocol",
			Fix:     "run migrate check --zookeeper ... --source-bootstrap-server ... to compare ZooKeeper with what the brokers serve"})
	}
	return out
}

// zooKeeperMode reports whether a cluster read through the protocol runs in
// ZooKeeper mode: a KRaft cluster always finalizes metadata.version.
func zooKeeperMode(s *snapshot.Snapshot) bool {
	return !slices.ContainsFunc(s.Features, func(f snapshot.Feature) bool { return f.Name == "metadata.version" })
}

// delegationTokens lists every token the principal may describe, without
// the HMAC. A cluster with tokens disabled has none; a refusal is a finding,
// since tokens only produce findings (they cannot be carried).
func (r *reader) delegationTokens(ctx context.Context) ([]snapshot.DelegationToken, error) {
	req := kmsg.NewPtrDescribeDelegationTokenRequest() // nil Owners: all
	resp, err := req.RequestWith(ctx, r.cl)
	var ne net.Error
	switch {
	case err == nil:
	case errors.As(err, &ne) || ctx.Err() != nil || errors.Is(err, kgo.ErrClientClosed):
		return nil, r.wrap(err, "listing delegation tokens", "DelegationToken:Describe")
	default: // the cluster does not take the request (kfake, very old brokers)
		r.finding(snapshot.Finding{ID: catalogue.IDKReadTokensNotRead, Severity: snapshot.SeverityWarning, Resource: "delegation tokens",
			Message: "DescribeDelegationToken failed (" + err.Error() + "); tokens the source holds are not listed",
			Fix:     "read ZooKeeper (/delegation_token/tokens) for them"})
		return nil, nil
	}
	switch err := kerr.ErrorForCode(resp.ErrorCode); {
	case err == nil:
	case err == kerr.DelegationTokenAuthDisabled:
		return nil, nil
	default:
		r.finding(snapshot.Finding{ID: catalogue.IDKReadTokensNotRead, Severity: snapshot.SeverityWarning, Resource: "delegation tokens",
			Message: "DescribeDelegationToken answered " + err.Error() + "; tokens the source holds are not listed",
			Fix:     "grant DelegationToken:Describe, or read ZooKeeper (/delegation_token/tokens)"})
		return nil, nil
	}
	out := make([]snapshot.DelegationToken, 0, len(resp.TokenDetails))
	for _, d := range resp.TokenDetails {
		t := snapshot.DelegationToken{TokenID: d.TokenID, Owner: d.PrincipalType + ":" + d.PrincipalName,
			IssueTimestamp: d.IssueTimestamp, MaxTimestamp: d.MaxTimestamp, ExpiryTimestamp: d.ExpiryTimestamp}
		t.Requester = t.Owner
		if d.TokenRequesterPrincipalName != "" {
			t.Requester = d.TokenRequesterPrincipalType + ":" + d.TokenRequesterPrincipalName
		}
		for _, rn := range d.Renewers {
			t.Renewers = append(t.Renewers, rn.PrincipalType+":"+rn.PrincipalName)
		}
		out = append(out, t)
	}
	return out, nil
}
