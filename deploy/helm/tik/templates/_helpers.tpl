{{- define "tik.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tik.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tik.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tik.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tik.labels" -}}
{{ include "tik.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tik.headless" -}}
{{- printf "%s-peers" (include "tik.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* the most replicas this release may run: every one is a peer of every other */}}
{{- define "tik.maxReplicas" -}}
{{- if .Values.autoscaling.enabled -}}{{ .Values.autoscaling.maxReplicas }}{{- else -}}{{ .Values.replicaCount }}{{- end -}}
{{- end -}}
