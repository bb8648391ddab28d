{{- define "serving.args" -}}
- vllm
- serve
{{- end }}
