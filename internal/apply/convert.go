package apply

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"hash"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func entityOrder(t string) int {
	switch t {
	case snapshot.EntityUser:
		return 0
	case snapshot.EntityClientID:
		return 1
	}
	return 2
}

func quotaEntity(e snapshot.QuotaEntity) []kmsg.AlterClientQuotasRequestEntryEntity {
	out := make([]kmsg.AlterClientQuotasRequestEntryEntity, 0, len(e))
	for _, c := range e {
		x := kmsg.NewAlterClientQuotasRequestEntryEntity()
		x.Type = c.Type
		if !c.Default {
			name := c.Name
			x.Name = &name
		}
		out = append(out, x)
	}
	return out
}

// aclCodes converts an ACL's names to protocol enums. The plan only holds
// ACLs read from ZooKeeper or Kafka, whose names parse; an unknown name
// becomes UNKNOWN and the broker rejects that one ACL.
func aclCodes(a *snapshot.ACL) (kmsg.ACLResourceType, kmsg.ACLResourcePatternType, kmsg.ACLOperation, kmsg.ACLPermissionType) {
	rt, _ := kmsg.ParseACLResourceType(a.ResourceType)
	pt, _ := kmsg.ParseACLResourcePatternType(a.PatternType)
	op, _ := kmsg.ParseACLOperation(a.Operation)
	perm, _ := kmsg.ParseACLPermissionType(a.Permission)
	return rt, pt, op, perm
}

func aclCreation(a *snapshot.ACL) kmsg.CreateACLsRequestCreation {
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourcePatternType, c.Operation, c.PermissionType = aclCodes(a)
	c.ResourceName, c.Principal, c.Host = a.ResourceName, a.Principal, a.Host
	return c
}

func aclFilter(a *snapshot.ACL) kmsg.DeleteACLsRequestFilter {
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType, f.Operation, f.PermissionType = aclCodes(a)
	name, principal, host := a.ResourceName, a.Principal, a.Host
	f.ResourceName, f.Principal, f.Host = &name, &principal, &host
	return f
}

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
