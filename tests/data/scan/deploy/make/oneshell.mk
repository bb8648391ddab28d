.ONESHELL:
serve:
	TP=4
	vllm serve Qwen/Qwen3-8B -tp $$TP -pp 3
