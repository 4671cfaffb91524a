package apply

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// alterConfigs is IncrementalAlterConfigs for resources of one type: SET
// for every after-state key, DELETE for a before-state key the after-state
// lacks.
func alterConfigs(rt kmsg.ConfigResourceType) *rpc {
	return &rpc{name: RPCIncrementalAlter, validateOnly: true, build: func(r *runner, b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		req.ValidateOnly = validate
		for _, c := range b {
			res := kmsg.NewIncrementalAlterConfigsRequestResource()
			res.ResourceType = rt
			res.ResourceName = c.Resource.Name
			for _, cf := range c.After.Configs {
				e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
				e.Name, e.Op = cf.Key, kmsg.IncrementalAlterConfigOpSet
				v := r.value(c, cf)
				e.Value = &v
				res.Configs = append(res.Configs, e)
			}
			for _, cf := range c.Before.Configs {
				if !slices.ContainsFunc(c.After.Configs, func(a snapshot.Config) bool { return a.Key == cf.Key }) {
					e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
					e.Name, e.Op = cf.Key, kmsg.IncrementalAlterConfigOpDelete
					res.Configs = append(res.Configs, e)
				}
			}
			req.Resources = append(req.Resources, res)
		}
		idx := indexByName(b)
		return req, func(resp kmsg.Response, out []outcome) {
			for _, res := range resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
				idx.set(out, res.ResourceName, res.ErrorCode, res.ErrorMessage)
			}
		}
	}}
}
