# lib.sh - random choices that repeat, for the tests of tests/links.
# Set seed first (the tests print it, and take it from the environment to
# repeat a run).

# pick N: a number in [0, N) from the seed (an LCG, so runs repeat)
pick() {
    seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
    echo $(( seed / 65536 % $1 ))
}

# nth N WORDS...: the N-th (from 0) of the words
nth() {
    n=$1
    shift
    shift "$n"
    echo "$1"
}
