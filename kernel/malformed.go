package kernel

import "strings"

// replyBadContent answers a request whose content does not decode (an
// array, a number where a string belongs) with an error reply of its
// type, so that the client does not wait for ever; the caller publishes
// busy and idle around it as for any request.
func (k *Kernel) replyBadContent(r request, err error) {
	k.log.Printf("%s: %v", r.ch.name, err)
	reply := map[string]any{
		"status": "error", "ename": "BadRequest", "evalue": err.Error(),
		"traceback": []string{"BadRequest: " + err.Error()},
	}
	if r.msgType() == "execute_request" {
		reply["execution_count"] = k.count()
	}
	k.reply(r, strings.TrimSuffix(r.msgType(), "_request")+"_reply", reply)
}
