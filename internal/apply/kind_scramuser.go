package apply

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// scram-user: AlterUserScramCredentials upserting the credential salted
// and hashed here, so the password never crosses the wire, or (a delete,
// with --prune) deleting the user's credential of that mechanism; one
// change per user per request (Kafka refuses two for one user).
var scramUserKind = &kindSpec{
	rpc:        always(alterScram),
	onePerUser: true,
}

var alterScram = &rpc{name: RPCAlterUserScramCredRPC, build: func(r *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	for _, c := range b {
		if c.Action == plan.ActionDelete {
			d := kmsg.NewAlterUserSCRAMCredentialsRequestDeletion()
			d.Name, d.Mechanism = c.Resource.Name, scramMechanism(c.Resource.Mechanism)
			req.Deletions = append(req.Deletions, d)
			continue
		}
		pw, _ := r.secret(c, plan.ScramKey, c.After.Password)
		req.Upsertions = append(req.Upsertions, scramUpsertion(c.Resource.Name, c.Resource.Mechanism, c.After.Iterations, pw))
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		for _, res := range resp.(*kmsg.AlterUserSCRAMCredentialsResponse).Results {
			idx.set(out, res.User, res.ErrorCode, res.ErrorMessage)
		}
	}
}}

// scramUpsertion salts and hashes a password the way Kafka's ScramFormatter
// does (PBKDF2 with the mechanism's hash), so the password itself never
// crosses the wire.
func scramUpsertion(user, mechanism string, iterations int32, password string) kmsg.AlterUserSCRAMCredentialsRequestUpsertion {
	u := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
	u.Name, u.Iterations = user, iterations
	u.Mechanism = scramMechanism(mechanism)
	h, keyLen := sha256.New, sha256.Size
	if u.Mechanism == 2 {
		h, keyLen = sha512.New, sha512.Size
	}
	salt := make([]byte, 24)
	_, _ = rand.Read(salt)
	u.Salt = salt
	u.SaltedPassword, _ = pbkdf2.Key(h, password, salt, int(iterations), keyLen)
	return u
}

// scramMechanism is the protocol's number for a mechanism: 2 for
// SCRAM-SHA-512, 1 for SCRAM-SHA-256 (Validate refuses any other).
func scramMechanism(name string) int8 {
	if name == "SCRAM-SHA-512" {
		return 2
	}
	return 1
}
