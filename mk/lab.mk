# tools/lab/: the course's labs (docs/labs/README.md).
#
#   make lab-start LAB=name DIR=dir   lab name's starting tree in dir
#   make grade [LAB=name]             in a lab's tree: build, run the lab's
#                                     tests, print the points (the finished
#                                     tree grades any lab with LAB=name)

.PHONY: lab-start grade
lab-start:
	tools/lab/lab-start $(call shell_quote,$(LAB)) $(call shell_quote,$(DIR))

grade:
	tools/lab/grade $(LAB)
