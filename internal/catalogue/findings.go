package catalogue

import (
	"slices"
	"strings"
)

// Finding is one kind of finding in the one vocabulary every part of the
// tool reports with: `migrate check`, the readers (zkread, kread, snapshot
// files, the source flags of the commands) and the plan (findings and
// blockers). Its id is stable: a finding may be refined, but an id never
// changes meaning and a retired id is not reused. docs/checks.md lists them
// all (go run ./tools/checksdoc).
type Finding struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Severity string `json:"severity"` // default severity; a blocker stops its change
	// SeverityNote documents a finding whose severity depends on the case;
	// empty when it never varies.
	SeverityNote string `json:"severity_note,omitempty"`
	Title        string `json:"title"` // what it reports, one line
	Why          string `json:"why"`   // why it matters
	Fix          string `json:"fix"`   // the generic fix; findings may be more specific
	Ref          string `json:"ref,omitempty"`
	// Aliases are former ids of the finding, which scripts may still use:
	// LookupFinding and `migrate explain` accept them. An alias names one
	// finding, or several that an old id once covered together
	// (READ-PROBLEM: every reader finding).
	Aliases []string `json:"aliases,omitempty"`
	// From is who reports it first (its section in docs/checks.md):
	// FromCheck, FromReader, FromPlan, FromBlocker; AlsoFrom who else
	// reports it under the same id.
	From     string   `json:"-"`
	AlsoFrom []string `json:"-"`
}

// ReportedBy lists who reports the finding: From, then AlsoFrom.
// `migrate check` reports every reader finding as it is.
func (f Finding) ReportedBy() []string {
	out := append([]string{f.From}, f.AlsoFrom...)
	if f.From == FromReader && !slices.Contains(out, FromCheck) {
		out = append(out, FromCheck)
	}
	return out
}

// Reports says whether from reports the finding.
func (f Finding) Reports(from string) bool { return slices.Contains(f.ReportedBy(), from) }

// DocsURL is where docs/checks.md explains an id.
func DocsURL(id string) string {
	return "https://github.com/zkmigrate/zkmigrate/blob/main/docs/checks.md#" + Anchor(id)
}

// Anchor is the GitHub heading anchor of an id in docs/checks.md.
func Anchor(id string) string { return strings.ReplaceAll(strings.ToLower(id), "/", "") }

// Severities, from most to least serious (snapshot's spellings).
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Who reports a finding.
const (
	FromCheck   = "check"   // internal/check, `migrate check`
	FromReader  = "reader"  // zkread, kread, snapshot files, the commands' source flags
	FromPlan    = "plan"    // plan findings
	FromBlocker = "blocker" // plan blockers: the change is not made
	FromAccess  = "access"  // the access proof's inputs (`migrate access`)
)

// Categories, in documentation order.
const (
	CatKRaft    = "KRaft readiness"
	CatKafka4   = "Kafka 4 configuration"
	CatCarry    = "What the admin protocol cannot carry"
	CatACL      = "ACL hygiene"
	CatTopic    = "Topic health"
	CatPolicy   = "TopicActionPolicy"
	CatCross    = "ZooKeeper versus the brokers (--zookeeper with --source-bootstrap-server)"
	CatAccess   = "Access equivalence (migrate access, check, plan, apply)"
	CatAccessIn = "Access proof inputs (migrate access)"
	CatReader   = "Reader findings (snapshot, plan and check input)"
	CatPlan     = "Plan findings"
	CatBlockers = "Plan blockers"
)

// Ids of the readers' findings (zkread, kread, snapshot, the commands).
const (
	IDZnodeMalformed         = "znode-malformed"
	IDZnodeNotReadable       = "znode-not-readable"
	IDZnodeUnknownVersion    = "znode-unknown-version"
	IDReadNotConsistent      = "read-not-consistent"
	IDNotificationsPending   = "notifications-pending"
	IDTopicConfigOrphan      = "topic-config-orphan"
	IDACLUnknownResourceType = "acl-unknown-resource-type"
	IDACLUnknownPatternType  = "acl-unknown-pattern-type"
	IDQuotaMalformed         = "quota-malformed"
	IDScramMalformed         = "scram-malformed"
	IDPasswordNotEncrypted   = "password-not-encrypted"
	IDPasswordNotDecrypted   = "password-not-decrypted"
	IDPasswordDecryptFailed  = "password-decrypt-failed"
	IDSnapshotSecretInClear  = "snapshot-secret-in-clear"
	IDEncoderSecretUnused    = "encoder-secret-unused"
	IDACLStoreElsewhere      = "acl-store-elsewhere"
	IDZKDataDirDamage        = "zk-data-dir-damage"
	IDKReadTopicError        = "kread/topic-error"
	IDKReadTopicVanished     = "kread/topic-vanished"
	IDKReadNoAuthorizer      = "kread/no-authorizer"
	IDKReadACLUnknown        = "kread/acl-unknown"
	// A source read through the admin protocol (kread.Options.Source):
	// what the protocol does not give, per item.
	IDKReadScramKeys       = "kread/scram-keys-not-returned"
	IDKReadSensitiveConfig = "kread/sensitive-config-not-returned"
	IDKReadZooKeeperMode   = "kread/zookeeper-mode-invisible"
	IDKReadTokensNotRead   = "kread/delegation-tokens-not-read"
)

// Ids of the access proof's findings (internal/access): `migrate access
// diff`, `check`, `plan` and `apply` report them.
const (
	IDAccessDifference     = "ACCESS-DIFFERENCE"
	IDAccessNotProved      = "ACCESS-NOT-PROVED"
	IDAccessNodesDisagree  = "ACCESS-NODES-DISAGREE"
	IDAccessConfigMismatch = "ACCESS-CONFIG-MISMATCH"
	IDAccessNoAuthorizer   = "ACCESS-NO-AUTHORIZER"
	IDAccessBadSetting     = "ACCESS-BAD-SETTING"
)

// Ids of the plan's findings.
const (
	IDTopicPendingDelete       = "topic-pending-delete"
	IDTopicIDChanges           = "topic-id-changes"
	IDTopicNoPartitions        = "topic-no-partitions"
	IDTopicMidReassignment     = "topic-mid-reassignment"
	IDConfigRemovedKafka4      = "config-removed-kafka4"
	IDConfigRaisedToTargetMin  = "config-raised-to-target-minimum"
	IDPlacementByTarget        = "placement-by-target"
	IDPlacementRackShared      = "placement-rack-shared"
	IDAssignmentDiffers        = "assignment-differs"
	IDBrokerConfigBadID        = "broker-config-bad-id"
	IDPruneKeepsClusterConfigs = "prune-keeps-cluster-configs"
	IDPruneKeepsKRaftOnly      = "prune-keeps-kraft-only"
	IDDelegationToken          = "delegation-token"
	IDLegacyReassignment       = "legacy-reassignment"
	IDOutOfScopeOffsets        = "out-of-scope-offsets"
	IDPrincipalMapUnmapped     = "principal-map-unmapped"
	IDPrincipalMapMerge        = "principal-map-merge"
	IDPolicyViolation          = "POLICY-VIOLATION" // also a check id: `migrate policy check` reports it
	IDBlockTieredStorageTopic  = "tiered-storage-topic"
	IDBlockConfigInvalidOnTgt  = "config-invalid-on-target"
	IDBlockBrokerMissing       = "broker-missing"
	IDBlockBrokerNotMapped     = "broker-not-mapped"
	IDBlockReplicationTooHigh  = "replication-factor-too-high"
	IDBlockReplicationDiffers  = "replication-factor-differs"
	IDBlockPartitionsDecrease  = "partitions-decrease"
	IDBlockPolicyDenied        = "policy-denied"
	IDBlockSecretUnknown       = "secret-unknown"
	IDBlockScramNoPassword     = "scram-no-password"
	IDBlockPruneOwnCredential  = "prune-own-credential"
	IDBlockPrincipalMapClash   = "principal-map-collision"
)

// Ids of a revert plan's findings and blockers (migrate audit revert).
const (
	IDRevertNothingApplied     = "revert-nothing-applied"
	IDRevertAlreadyReverted    = "revert-already-reverted"
	IDRevertInFlight           = "revert-in-flight"
	IDRevertTopicRecreated     = "revert-topic-recreated"
	IDRevertSecretFromSource   = "revert-secret-from-source"
	IDBlockRevertChangedSince  = "revert-changed-since"
	IDBlockRevertTopicKept     = "revert-topic-kept"
	IDBlockRevertPartitions    = "revert-partitions"
	IDBlockRevertScramPassword = "revert-scram-password"
	IDBlockRevertSecretUnknown = "revert-secret-unknown"
	IDBlockRevertNotRecorded   = "revert-not-recorded"
	IDBlockRevertOwnCredential = "revert-own-credential"
)

// Findings returns the whole vocabulary in documentation order: check's
// findings, then the readers', the plan's and the plan's blockers.
func Findings() []Finding { return append([]Finding(nil), allFindings...) }

// FindingsFrom returns the findings one reporter (FromCheck, ...) reports
// first, in documentation order.
func FindingsFrom(from string) []Finding {
	var out []Finding
	for _, f := range allFindings {
		if f.From == from {
			out = append(out, f)
		}
	}
	return out
}

// ReportedBy returns every finding one reporter reports (first or also), in
// documentation order.
func ReportedBy(from string) []Finding {
	var out []Finding
	for _, f := range allFindings {
		if f.Reports(from) {
			out = append(out, f)
		}
	}
	return out
}

// LookupFinding returns the finding with the given id, or the one finding
// a former id (an alias) names. Ids match without regard to case.
func LookupFinding(id string) (Finding, bool) {
	if f, ok := findingIndex[strings.ToLower(id)]; ok {
		return f, true
	}
	if fs := aliasIndex[strings.ToLower(id)]; len(fs) == 1 {
		return fs[0], true
	}
	return Finding{}, false
}

// Lookup returns the findings an id names: the one with that id, or every
// finding that lists it as a former id (one, or several for an id that once
// covered several). Ids match without regard to case.
func Lookup(id string) []Finding {
	if f, ok := findingIndex[strings.ToLower(id)]; ok {
		return []Finding{f}
	}
	return aliasIndex[strings.ToLower(id)]
}

// IDs lists every id of the vocabulary, in documentation order (for shell
// completion).
func IDs() []string {
	out := make([]string, len(allFindings))
	for i, f := range allFindings {
		out[i] = f.ID
	}
	return out
}

var allFindings = func() []Finding {
	var all []Finding
	for _, part := range []struct {
		from string
		fs   []Finding
	}{{FromCheck, checkFindings}, {FromReader, readerFindings}, {FromPlan, planFindings}, {FromBlocker, blockerFindings}, {FromAccess, accessFindings}} {
		for _, f := range part.fs {
			f.From = part.from
			if f.From == FromReader {
				// check reported every reader finding under READ-PROBLEM,
				// with the reader's id in the message.
				f.Aliases = append(slices.Clip(f.Aliases), "READ-PROBLEM")
			}
			all = append(all, f)
		}
	}
	return all
}()

var findingIndex = func() map[string]Finding {
	m := make(map[string]Finding, len(allFindings))
	for _, f := range allFindings {
		if _, dup := m[strings.ToLower(f.ID)]; dup {
			panic("catalogue: finding id listed twice: " + f.ID)
		}
		m[strings.ToLower(f.ID)] = f
	}
	return m
}()

var aliasIndex = func() map[string][]Finding {
	m := map[string][]Finding{}
	for _, f := range allFindings {
		for _, a := range f.Aliases {
			if _, clash := findingIndex[strings.ToLower(a)]; clash {
				panic("catalogue: alias " + a + " of " + f.ID + " is an id")
			}
			m[strings.ToLower(a)] = append(m[strings.ToLower(a)], f)
		}
	}
	return m
}()
