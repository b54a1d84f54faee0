import ArgumentParser

FlowHostCommand.main()
