package zkfeed

import (
	"encoding/json"
	"fmt"
	"strings"
)

// aclTypes spells each resource type as the /kafka-acl paths do; change
// notifications write it either way ("Topic" before Kafka 2.5, "TOPIC"
// since).
var aclTypes = map[string]string{
	"topic":           "Topic",
	"group":           "Group",
	"cluster":         "Cluster",
	"transactionalid": "TransactionalId",
	"delegationtoken": "DelegationToken",
	"user":            "User",
}

// aclType spells a notification's resource type ("TOPIC",
// "TRANSACTIONAL_ID", "Topic") as the /kafka-acl paths do.
func aclType(s string) (string, bool) {
	t, ok := aclTypes[strings.ReplaceAll(strings.ToLower(s), "_", "")]
	return t, ok
}

// parseNotification reads one notification znode of queue q into the
// entity it announces.
func parseNotification(q string, data []byte) (Entity, error) {
	switch q {
	case configChanges:
		var n struct {
			Version    int     `json:"version"`
			EntityPath *string `json:"entity_path"`
			EntityType *string `json:"entity_type"`
			EntityName *string `json:"entity_name"`
		}
		if err := json.Unmarshal(data, &n); err != nil {
			return Entity{}, fmt.Errorf("config change notification is not JSON: %v", err)
		}
		switch {
		case n.Version == 2 && n.EntityPath != nil && strings.Contains(*n.EntityPath, "/"):
			return Entity{Config, *n.EntityPath}, nil
		case n.Version == 1 && n.EntityType != nil && n.EntityName != nil:
			return Entity{Config, *n.EntityType + "/" + *n.EntityName}, nil
		}
		return Entity{}, fmt.Errorf("config change notification of unknown form (version %d)", n.Version)
	case aclChanges:
		// "<ResourceType>:<name>", LITERAL; the name may contain ':'.
		typ, name, ok := strings.Cut(string(data), ":")
		t, known := aclType(typ)
		if !ok || !known {
			return Entity{}, fmt.Errorf("ACL change notification %q names no resource type Kafka knows", string(data))
		}
		return Entity{ACL, t + ":LITERAL:" + name}, nil
	case aclExtChanges:
		var n struct {
			Version      int    `json:"version"`
			ResourceType string `json:"resourceType"`
			Name         string `json:"name"`
			PatternType  string `json:"patternType"`
		}
		if err := json.Unmarshal(data, &n); err != nil {
			return Entity{}, fmt.Errorf("extended ACL change notification is not JSON: %v", err)
		}
		t, known := aclType(n.ResourceType)
		if n.Version != 1 || !known || n.PatternType == "" {
			return Entity{}, fmt.Errorf("extended ACL change notification of unknown form (version %d, resource type %q)", n.Version, n.ResourceType)
		}
		return Entity{ACL, t + ":" + strings.ToUpper(n.PatternType) + ":" + n.Name}, nil
	}
	return Entity{}, fmt.Errorf("no notification queue %s", q)
}
