package apply

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"hash"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// scram-user: AlterUserScramCredentials upserting the credential salted
// and hashed here, so the password never crosses the wire; one change per
// user per request (Kafka refuses two for one user).
var scramUserKind = &kindSpec{
	rpc:      always(alterScram),
	password: true,
	valid: func(c *plan.Change) string {
		if c.After.Password == nil || c.Resource.Mechanism == "" {
			return "no password reference or mechanism"
		}
		return ""
	},
	onePerUser: true,
}

var alterScram = &rpc{name: RPCAlterUserScramCredRPC, build: func(r *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	for _, c := range b {
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
	var h func() hash.Hash
	var keyLen int
	switch mechanism {
	case "SCRAM-SHA-512":
		u.Mechanism, h, keyLen = 2, sha512.New, sha512.Size
	default:
		u.Mechanism, h, keyLen = 1, sha256.New, sha256.Size
	}
	salt := make([]byte, 24)
	_, _ = rand.Read(salt)
	u.Salt = salt
	u.SaltedPassword, _ = pbkdf2.Key(h, password, salt, int(iterations), keyLen)
	return u
}
