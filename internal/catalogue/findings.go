package catalogue

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
	// From is who reports it: FromCheck, FromReader, FromPlan, FromBlocker.
	From string `json:"-"`
}

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
	CatRead     = "Reading the source"
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

// Findings returns the whole vocabulary in documentation order: check's
// findings, then the readers', the plan's and the plan's blockers.
func Findings() []Finding { return append([]Finding(nil), allFindings...) }

// FindingsFrom returns the findings one reporter (FromCheck, ...) uses.
func FindingsFrom(from string) []Finding {
	var out []Finding
	for _, f := range allFindings {
		if f.From == from {
			out = append(out, f)
		}
	}
	return out
}

// LookupFinding returns the finding with the given id.
func LookupFinding(id string) (Finding, bool) {
	f, ok := findingIndex[id]
	return f, ok
}

var allFindings = func() []Finding {
	var all []Finding
	for _, part := range []struct {
		from string
		fs   []Finding
	}{{FromCheck, checkFindings}, {FromReader, readerFindings}, {FromPlan, planFindings}, {FromBlocker, blockerFindings}, {FromAccess, accessFindings}} {
		for _, f := range part.fs {
			f.From = part.from
			all = append(all, f)
		}
	}
	return all
}()

var findingIndex = func() map[string]Finding {
	m := make(map[string]Finding, len(allFindings))
	for _, f := range allFindings {
		if _, dup := m[f.ID]; dup {
			panic("catalogue: finding id listed twice: " + f.ID)
		}
		m[f.ID] = f
	}
	return m
}()
