TP=3
export PP=2
bash <<EOF
vllm serve m -tp $TP -pp \$PP
EOF
cat > run.sh <<'EOF'
vllm serve m -tp $TP -pp $PP
EOF
ssh node bash -s <<'END'
vllm serve m -pp $PP
END
python3 - <<PY
import subprocess
subprocess.run(["vllm", "serve", "m", "-tp", "$TP"])
PY
cat <<-EOF | tee x <<<ignored
	vllm serve m --served-model-name '$TP' # kept
	EOF
vllm serve m -dp 2 <<<"text"
