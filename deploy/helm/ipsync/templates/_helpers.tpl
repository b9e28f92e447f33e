{{/*
Names. The full name prefixes every object; DNS labels are at most 63
characters, and helm's release names at most 53.
*/}}
{{- define "ipsync.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ipsync.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
ipsync.siteFullname: the name of a site's Deployment, Service and claim.
It is not truncated: two sites cut to one name would share objects, so a
name too long fails instead. Called with (dict "root" $ "site" $site).
*/}}
{{- define "ipsync.siteFullname" -}}
{{- $name := printf "%s-%s" (include "ipsync.fullname" .root) .site.name -}}
{{- if gt (len $name) 63 -}}
{{- fail (printf "site %q: the object name %q is %d characters, more than the 63 of a Service name; shorten the release name, or set fullnameOverride" .site.name $name (len $name)) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/*
ipsync.reconcilerFullname: the name of the reconciler's Deployment and
Service. Not truncated, as a site's: cut, it could be a site's name.
*/}}
{{- define "ipsync.reconcilerFullname" -}}
{{- $name := printf "%s-reconciler" (include "ipsync.fullname" .) -}}
{{- if gt (len $name) 63 -}}
{{- fail (printf "reconciler.enabled: the object name %q is %d characters, more than the 63 of a Service name; shorten the release name, or set fullnameOverride" $name (len $name)) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- define "ipsync.configMapName" -}}
{{- printf "%s-config" (include "ipsync.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The ConfigMap the reconciler reads its spec from: the chart's (reconciler.spec) or an existing one. */}}
{{- define "ipsync.specConfigMapName" -}}
{{- if .Values.reconciler.specConfigMap -}}
{{- .Values.reconciler.specConfigMap -}}
{{- else -}}
{{- printf "%s-spec" (include "ipsync.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ipsync.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ipsync.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "ipsync.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "ipsync.labels" -}}
helm.sh/chart: {{ include "ipsync.chart" . }}
{{ include "ipsync.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ipsync
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* What every selector of the chart starts from. */}}
{{- define "ipsync.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ipsync.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
A site's selector labels: the component tells agents from the reconciler,
ipsync.io/site one site's agents from another's. Selectors are immutable,
so these never change between chart versions.
*/}}
{{- define "ipsync.siteSelectorLabels" -}}
{{ include "ipsync.selectorLabels" .root }}
app.kubernetes.io/component: agent
ipsync.io/site: {{ .site.name }}
{{- end -}}

{{/* The reconciler's selector labels. */}}
{{- define "ipsync.reconcilerSelectorLabels" -}}
{{ include "ipsync.selectorLabels" . }}
app.kubernetes.io/component: reconciler
{{- end -}}

{{/* The image: a digest wins over the tag, which defaults to appVersion. */}}
{{- define "ipsync.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
Fixed places inside the containers. The config's chart-set keys point at
them; the volumes mount there.
*/}}
{{- define "ipsync.port" -}}9478{{- end -}}
{{- define "ipsync.stateDir" -}}/var/lib/ipsync{{- end -}}
{{- define "ipsync.sotTokenFile" -}}/var/run/secrets/ipsync/sot/token{{- end -}}
{{- define "ipsync.rabbitmqPasswordFile" -}}/var/run/secrets/ipsync/rabbitmq/password{{- end -}}
{{- define "ipsync.specDir" -}}/etc/ipsync/spec{{- end -}}

{{/*
ipsync.rabbitmqPassword: "true" when the agents get RabbitMQ's password as a
file: a broker to connect to, and a Secret holding the password.
*/}}
{{- define "ipsync.rabbitmqPassword" -}}
{{- if and .Values.secrets.rabbitmq.name (dig "agent" "rabbitmq" "url" "" (.Values.config | default dict)) -}}
true
{{- end -}}
{{- end -}}

{{/* The keys of a site entry that are ipsync.yaml's; the rest are the pods'. */}}
{{- define "ipsync.siteConfigKeys" -}}
name namespace namespace_per_network location neutron physnet_groups tenants status segment_ranges
{{- end -}}

{{/*
ipsync.globalConfig: ipsync.yaml without its sites, as YAML. The keys the
chart owns are set here, whatever values say (the schema refuses them).
*/}}
{{- define "ipsync.globalConfig" -}}
{{- $cfg := deepCopy (.Values.config | default dict) -}}
{{- $target := $cfg.target | default "nautobot" -}}
{{- $_ := set $cfg "target" $target -}}
{{- $sot := deepCopy (get $cfg $target | default dict) -}}
{{- if .Values.secrets.sot.name -}}
{{- $_ := set $sot "token_file" (include "ipsync.sotTokenFile" .) -}}
{{- end -}}
{{- $_ := set $cfg $target $sot -}}
{{- /* An empty section of the other server is left out: ipsync would read it as one the file has. */ -}}
{{- range $server := list "nautobot" "netbox" -}}
{{- if not (get $cfg $server) -}}
{{- $_ := unset $cfg $server -}}
{{- end -}}
{{- end -}}
{{- range $k := list "marker" "policy" "spec" "allowed_hosts" -}}
{{- if not (get $cfg $k) -}}
{{- $_ := unset $cfg $k -}}
{{- end -}}
{{- end -}}
{{- $agent := deepCopy ($cfg.agent | default dict) -}}
{{- $_ := set $agent "listen" (printf "0.0.0.0:%s" (include "ipsync.port" .)) -}}
{{- $_ := set $agent "state_dir" (include "ipsync.stateDir" .) -}}
{{- $rabbitmq := deepCopy ($agent.rabbitmq | default dict) -}}
{{- if not $rabbitmq.url -}}
{{- $_ := unset $rabbitmq "url" -}}
{{- end -}}
{{- if eq (include "ipsync.rabbitmqPassword" .) "true" -}}
{{- $_ := set $rabbitmq "password_file" (include "ipsync.rabbitmqPasswordFile" .) -}}
{{- end -}}
{{- if $rabbitmq -}}
{{- $_ := set $agent "rabbitmq" $rabbitmq -}}
{{- else -}}
{{- $_ := unset $agent "rabbitmq" -}}
{{- end -}}
{{- if eq .Values.lease.type "kubernetes" -}}
{{- $_ := set $agent "lease" "kubernetes" -}}
{{- $_ := set $agent "kubernetes" (dict "namespace" .Release.Namespace) -}}
{{- end -}}
{{- $_ := set $cfg "agent" $agent -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/* ipsync.siteConfig: one site's entry of ipsync.yaml, as YAML. */}}
{{- define "ipsync.siteConfig" -}}
{{- $entry := dict -}}
{{- range $k := splitList " " (include "ipsync.siteConfigKeys" .) -}}
{{- if hasKey $.site $k -}}
{{- $_ := set $entry $k (get $.site $k) -}}
{{- end -}}
{{- end -}}
{{- toYaml $entry -}}
{{- end -}}

{{/* ipsync.config: the whole ipsync.yaml. */}}
{{- define "ipsync.config" -}}
{{- $cfg := fromYaml (include "ipsync.globalConfig" .) -}}
{{- $sites := list -}}
{{- range $site := .Values.sites -}}
{{- $sites = append $sites (fromYaml (include "ipsync.siteConfig" (dict "site" $site))) -}}
{{- end -}}
{{- if $sites -}}
{{- $_ := set $cfg "sites" $sites -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/*
ipsync.reconcilerChecksum: what the reconciler reads of ipsync.yaml (the
target, marker, policy, spec.name, allowed_hosts and agent sections, no
site's), hashed.
*/}}
{{- define "ipsync.reconcilerChecksum" -}}
{{- include "ipsync.globalConfig" . | sha256sum -}}
{{- end -}}

{{/*
ipsync.siteChecksum: what a site's agents read of ipsync.yaml, hashed. A
change of it rolls that site's Deployment; adding or changing another site
does not.
*/}}
{{- define "ipsync.siteChecksum" -}}
{{- printf "%s\n---\n%s" (include "ipsync.globalConfig" .root) (include "ipsync.siteConfig" (dict "site" .site)) | sha256sum -}}
{{- end -}}

{{/*
ipsync.site: a site entry with the chart-wide pod settings filled in, as
YAML. A site's own key replaces the chart's, except env (appended),
podAnnotations and podLabels (merged over) and persistence (merged key by
key).
*/}}
{{- define "ipsync.site" -}}
{{- $v := .root.Values -}}
{{- $s := deepCopy .site -}}
{{- $_ := set $s "replicas" (hasKey .site "replicas" | ternary .site.replicas 1) -}}
{{- range $k := list "resources" "nodeSelector" "tolerations" "affinity" -}}
{{- if not (hasKey $s $k) -}}
{{- $_ := set $s $k (get $v $k) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $s "env" (concat ($v.env | default list) (.site.env | default list)) -}}
{{- $_ := set $s "podAnnotations" (merge (deepCopy (.site.podAnnotations | default dict)) ($v.podAnnotations | default dict)) -}}
{{- $_ := set $s "podLabels" (merge (deepCopy (.site.podLabels | default dict)) ($v.podLabels | default dict)) -}}
{{- $_ := set $s "persistence" (merge (deepCopy (.site.persistence | default dict)) (deepCopy $v.persistence)) -}}
{{- $_ := set $s "clouds" (.site.clouds | default $v.secrets.clouds) -}}
{{- toYaml $s -}}
{{- end -}}

{{/*
ipsync.leaseNames: the Lease names the agents and the reconciler take
with lease.type kubernetes: "ipsync-" and the owner, ":" made "-"
(neutron:<site> for each site, static:<spec name> for the reconciler).
The Role's get and update are limited to these.
*/}}
{{- define "ipsync.leaseNames" -}}
{{- $names := list -}}
{{- range $site := .Values.sites -}}
{{- $names = append $names (include "ipsync.leaseName" (printf "neutron:%s" $site.name)) -}}
{{- end -}}
{{- if .Values.reconciler.enabled -}}
{{- $names = append $names (include "ipsync.leaseName" (printf "static:%s" (include "ipsync.specName" .))) -}}
{{- end -}}
{{- toYaml $names -}}
{{- end -}}

{{/*
ipsync.leaseName: the Lease of an owner, as internal/kubelease's Name
makes it: "ipsync-" and the owner in lower case, each run of characters
a Kubernetes name cannot hold made "-" ("static:Deploy_1" is
ipsync-static-deploy-1), at most 253 characters.
*/}}
{{- define "ipsync.leaseName" -}}
{{- $name := printf "ipsync-%s" (regexReplaceAll "[^a-z0-9.-]+" (lower .) "-" | trimAll "-.") | trunc 253 -}}
{{- regexReplaceAll "[-.]+$" $name "" -}}
{{- end -}}

{{/* The static spec's name (config.spec.name), as ipsync defaults it. */}}
{{- define "ipsync.specName" -}}
{{- (.Values.config.spec | default dict).name | default "default" -}}
{{- end -}}

{{/*
ipsync.seconds: a Go duration ("10m", "1h30m", "90s", "1.5h") in seconds,
for the alerts that count in agent intervals.
*/}}
{{- define "ipsync.seconds" -}}
{{- $total := 0.0 -}}
{{- range $part := regexFindAll "[0-9.]+(ns|us|µs|ms|s|m|h)" . -1 -}}
{{- $n := regexFind "^[0-9.]+" $part | float64 -}}
{{- $unit := trimPrefix (regexFind "^[0-9.]+" $part) $part -}}
{{- $scale := get (dict "ns" 1e-9 "us" 1e-6 "µs" 1e-6 "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0) $unit -}}
{{- $total = addf $total (mulf $n $scale) -}}
{{- end -}}
{{- $total -}}
{{- end -}}

{{/*
The RBAC objects are rendered when the pods use the API: the agents' and
the reconciler's Leases with lease.type kubernetes. The reconciler reads
its spec from files (the mounted ConfigMap), not through the API.
*/}}
{{- define "ipsync.rbacNeeded" -}}
{{- if and .Values.rbac.create (eq .Values.lease.type "kubernetes") (or .Values.sites .Values.reconciler.enabled) -}}
true
{{- end -}}
{{- end -}}

{{/*
ipsync.podCommon: the pod-level settings of the agents' and the
reconciler's pods. Called with (dict "root" $ "automount" bool "pod"
settings).
*/}}
{{- define "ipsync.podCommon" -}}
serviceAccountName: {{ include "ipsync.serviceAccountName" .root }}
automountServiceAccountToken: {{ .automount }}
terminationGracePeriodSeconds: {{ .root.Values.terminationGracePeriodSeconds }}
{{- with .root.Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
ipsync.bootstrapInit: the init container that runs `ipsync bootstrap
--commit` before the daemon starts, so that a first install writes to a
Nautobot or NetBox that has the marker's tag and custom fields. It reads
the config and the target's token like the daemon, and nothing else. Given
root, env (the daemon's extra environment, where a token may come from).
*/}}
{{- define "ipsync.bootstrapInit" -}}
{{- $root := .root -}}
initContainers:
  - name: bootstrap
    image: {{ include "ipsync.image" $root }}
    imagePullPolicy: {{ $root.Values.image.pullPolicy }}
    args:
      - bootstrap
      - --config
      - /etc/ipsync/ipsync.yaml
      - --commit
    {{- with .env }}
    env:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    resources:
      requests:
        cpu: 10m
        memory: 32Mi
      limits:
        memory: 128Mi
    {{- with $root.Values.securityContext }}
    securityContext:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    volumeMounts:
      - name: config
        mountPath: /etc/ipsync
        readOnly: true
      {{- if $root.Values.secrets.sot.name }}
      - name: sot-token
        mountPath: {{ dir (include "ipsync.sotTokenFile" $root) }}
        readOnly: true
      {{- end }}
{{- end -}}

{{/* Probes of the agents' and the reconciler's container. */}}
{{- define "ipsync.probes" -}}
{{- with .Values.probes.startup }}
startupProbe:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.probes.liveness }}
livenessProbe:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.probes.readiness }}
readinessProbe:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
ipsync.validate: what the schema cannot say. Included by the ConfigMap,
which every installation renders, so a bad combination fails every
command (template, install, lint) with one message.
*/}}
{{- define "ipsync.validate" -}}
{{- $seen := dict -}}
{{- range $i, $site := .Values.sites -}}
{{- if hasKey $seen $site.name -}}
{{- fail (printf "sites[%d]: site %q is listed twice; each site has one entry (one Deployment)" $i $site.name) -}}
{{- end -}}
{{- $_ := set $seen $site.name true -}}
{{- $s := fromYaml (include "ipsync.site" (dict "root" $ "site" $site)) -}}
{{- if and $s.persistence.enabled (gt (int $s.replicas) 1) -}}
{{- fail (printf "sites[%d] (%s): persistence.enabled with replicas %d: a Deployment's pods share its one PersistentVolumeClaim, a ReadWriteOnce volume mounts on one node only, and two agents must not write one state directory; keep persistence for sites with replicas 1 (the standby of a 2-replica site keeps its state in an emptyDir)" $i $site.name (int $s.replicas)) -}}
{{- end -}}
{{- $_ := include "ipsync.siteFullname" (dict "root" $ "site" $site) -}}
{{- $neutron := $site.neutron | default dict -}}
{{- if and (ne ($neutron.auth | default "noauth") "keystone") (not $neutron.endpoint) -}}
{{- fail (printf "sites[%d] (%s): neutron.endpoint is required with auth noauth (or set neutron.auth: keystone and neutron.cloud)" $i $site.name) -}}
{{- end -}}
{{- end -}}
{{- $target := .Values.config.target | default "nautobot" -}}
{{- if and (or .Values.sites .Values.reconciler.enabled) (not (get (get .Values.config $target | default dict) "url")) -}}
{{- fail (printf "config.%s.url is empty: config.target is %s, and the agents (and the reconciler) need the URL of the server they write to" $target $target) -}}
{{- end -}}
{{- $r := .Values.reconciler -}}
{{- if $r.enabled -}}
{{- if and (not $r.spec) (not $r.specConfigMap) -}}
{{- fail "reconciler.enabled: give the spec files in reconciler.spec (file name: YAML text), or name an existing ConfigMap holding them in reconciler.specConfigMap" -}}
{{- end -}}
{{- if and $r.spec $r.specConfigMap -}}
{{- fail (printf "reconciler.spec and reconciler.specConfigMap (%s) are both given: the reconciler reads one spec; set reconciler.spec: null to read the ConfigMap, or specConfigMap: \"\" for the inline files" $r.specConfigMap) -}}
{{- end -}}
{{- range $i, $site := .Values.sites -}}
{{- if eq $site.name "reconciler" -}}
{{- fail (printf "sites[%d]: a site named reconciler would share its Deployment and Service name with the reconciler's (reconciler.enabled); rename the site" $i) -}}
{{- end -}}
{{- end -}}
{{- $_ := include "ipsync.reconcilerFullname" . -}}
{{- end -}}
{{- end -}}
