print("signerkit")
