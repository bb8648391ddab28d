# variables set after the rules, per target, and under a condition
serve:
	vllm serve $(MODEL) -tp $(TP) -dcp 3
small: TP = 2
small:
	vllm serve $(MODEL) -tp $(SMALL)
ifeq ($(GPU),h100)
SMALL = 4
else
SMALL = 2
endif
MODEL = Qwen/Qwen3-32B
TP = 8
