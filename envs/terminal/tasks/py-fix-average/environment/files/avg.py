import sys
nums = [float(x) for x in open(sys.argv[1]).read().split('\n')]
print(sum(nums) / len(nums))
