TP=2
if [ "$GPU" = "H100" ]; then
  TP=8
  vllm serve m -tp $TP
elif [ "$GPU" = "A100" ]; then TP=4
  vllm serve m -tp $TP
else
  vllm serve m -tp $TP
fi
vllm serve m -tp $TP
case "$SIZE" in
  big|huge) PP=8
    vllm serve m -pp $PP ;;
  small) vllm serve m -pp ${PP:-1} ;;
  *)
    PP=3
    ;;
esac
vllm serve m -pp $PP
if true; then vllm serve m -dp 2; fi
